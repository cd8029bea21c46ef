// The console's map: the navigation, in sections, and every hash route with the page that draws
// it (app.js shows them). test/console's accessibility walk reads both lists from this file.
import { autorespondersPage } from './pages/autoresponders.js';
import { billingPage } from './pages/billing.js';
import { callPage, callsPage } from './pages/calls.js';
import { campaignsPage } from './pages/campaigns.js';
import { compliancePage } from './pages/compliance.js';
import { composePage } from './pages/compose.js';
import { contactPage, contactsPage } from './pages/contacts.js';
import { conversationPage, inboxPage } from './pages/conversations.js';
import { credentialsPage } from './pages/credentials.js';
import { dripPage, dripsPage } from './pages/drips.js';
import { filesPage } from './pages/files.js';
import { formPage, formsPage } from './pages/forms.js';
import { groupPage, groupsPage } from './pages/groups.js';
import { integrationsPage } from './pages/integrations.js';
import { jobPage, jobsPage } from './pages/jobs.js';
import { linkPage, linksPage } from './pages/links.js';
import { listPage, listsPage } from './pages/lists.js';
import { meetingEventPage, meetingsPage } from './pages/meetings.js';
import { messagePage, messagesPage } from './pages/messages.js';
import { numbersPage } from './pages/numbers.js';
import { overviewPage } from './pages/overview.js';
import { reportPage, reportsPage } from './pages/reports.js';
import { routesPage } from './pages/routes.js';
import { templatesPage } from './pages/templates.js';
import { usersPage } from './pages/users.js';
import { webhookPage, webhooksPage } from './pages/webhooks.js';
import { workflowEditorPage } from './pages/workflow-editor.js';
import { workflowPage, workflowsPage } from './pages/workflows.js';

/**
 * The navigation, in sections; an entry with a role is shown to that role only, and a section
 * with no entry left is not shown.
 * @type {{ label: string | null, entries: [path: string, label: string, role?: string][] }[]}
 */
export const NAV = [
  { label: null, entries: [['/overview', 'Overview']] },
  {
    label: 'Messaging',
    entries: [
      ['/compose', 'Compose'],
      ['/inbox', 'Inbox'],
      ['/messages', 'Messages'],
      ['/campaigns', 'Campaigns'],
      ['/reports', 'Reports'],
      ['/templates', 'Templates'],
      ['/jobs', 'Jobs'],
      ['/files', 'Files'],
    ],
  },
  {
    label: 'Automation',
    entries: [
      ['/workflows', 'Workflows'],
      ['/drips', 'Drip campaigns'],
      ['/autoresponders', 'Autoresponders'],
      ['/forms', 'Lead forms'],
      ['/links', 'Tracked links'],
      ['/meetings', 'Meetings'],
    ],
  },
  {
    label: 'Audience',
    entries: [
      ['/contacts', 'Contacts'],
      ['/lists', 'Lists'],
    ],
  },
  {
    label: 'Numbers',
    entries: [
      ['/numbers', 'Numbers'],
      ['/groups', 'Groups'],
      ['/routes', 'Routes'],
      ['/calls', 'Calls'],
      ['/compliance', 'Compliance'],
    ],
  },
  {
    label: 'Account',
    entries: [
      ['/webhooks', 'Webhooks'],
      ['/integrations', 'Integrations'],
      ['/users', 'Users', 'Administrator'],
      ['/credentials', 'API credentials', 'Administrator'],
      ['/billing', 'Billing', 'Administrator'],
    ],
  },
];

export const ROUTES = [
  { path: '/overview', page: overviewPage },
  { path: '/contacts', page: contactsPage },
  { path: '/contacts/:id', page: contactPage },
  { path: '/lists', page: listsPage },
  { path: '/lists/:id', page: listPage },
  { path: '/compose', page: composePage },
  { path: '/messages', page: messagesPage },
  { path: '/messages/:id', page: messagePage },
  { path: '/jobs', page: jobsPage },
  { path: '/jobs/:id', page: jobPage },
  { path: '/inbox', page: inboxPage },
  { path: '/inbox/:id', page: conversationPage },
  { path: '/templates', page: templatesPage },
  { path: '/files', page: filesPage },
  { path: '/campaigns', page: campaignsPage },
  { path: '/autoresponders', page: autorespondersPage },
  { path: '/webhooks', page: webhooksPage },
  { path: '/webhooks/:id', page: webhookPage },
  { path: '/workflows', page: workflowsPage },
  { path: '/workflows/:id', page: workflowPage },
  { path: '/drips', page: dripsPage },
  { path: '/drips/:id', page: dripPage },
  { path: '/forms', page: formsPage },
  { path: '/forms/:id', page: formPage },
  { path: '/links', page: linksPage },
  { path: '/links/:id', page: linkPage },
  { path: '/users', page: usersPage },
  { path: '/credentials', page: credentialsPage },
  { path: '/numbers', page: numbersPage },
  { path: '/groups', page: groupsPage },
  { path: '/groups/:id', page: groupPage },
  { path: '/routes', page: routesPage },
  { path: '/integrations', page: integrationsPage },
  { path: '/billing', page: billingPage },
  { path: '/calls', page: callsPage },
  { path: '/calls/:id', page: callPage },
  { path: '/compliance', page: compliancePage },
  // console-pages: reports, meetings.
  { path: '/reports', page: reportsPage },
  { path: '/reports/:kind/:id', page: reportPage },
  { path: '/meetings', page: meetingsPage },
  { path: '/meetings/:id', page: meetingEventPage },
  { path: '/workflows/:id/editor', page: workflowEditorPage },
];
