import pg from 'pg';
import { type Db, type Queryable, withTx } from '../../db/client.ts';
import { findWorkflow, insertWorkflow, versionsOf } from '../../db/queries/workflows.ts';
import { fail } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import type { DefinitionInput } from './definition.ts';
import { presentWorkflow, type Workflow } from './present-workflow.ts';
import { saveVersions } from './save-versions.ts';
import { findWorkflowTemplate, type WorkflowTemplate } from './workflow-templates.ts';

export type { Workflow } from './present-workflow.ts';

/**
 * What a caller gives to create a workflow: a name and its first versions (each with a
 * definition), or a catalog `templateId` (its definition becomes the first version; the name
 * defaults to the template's).
 */
export interface WorkflowInput {
  name?: string;
  templateId?: string;
  versions?: {
    name?: string;
    definition: DefinitionInput;
    activate?: boolean;
    active?: string | boolean | null;
  }[];
}

/**
 * Creates a workflow and its versions in one transaction; a version with `activate: true` becomes
 * the active one (contacts start entering it). Nodes name their type as `type: {id}` (see
 * node-types.ts). Given a client inside a transaction instead of the pool, it writes in that
 * transaction (so a caller's own changes and the workflow commit together).
 * From a template, the workflow gets one inactive version "v1" holding the template's definition
 * (validated like any other). Errors: WF-008 several active versions, WF-010…WF-017 invalid
 * definition, WF-018 unknown template, WF-019 a template and versions together, VAL-001 no name.
 */
export async function createWorkflow(
  db: Db | Queryable,
  accountId: string,
  input: WorkflowInput,
  by: Actor,
  externalsUrl: string,
): Promise<Workflow> {
  const template = input.templateId === undefined ? undefined : templateOf(input);
  const name =
    input.name ?? template?.name ?? fail('VAL-001', 'A workflow needs a `name` (or a `templateId`).');
  const versions = template ? [{ name: 'v1', definition: template.definition }] : (input.versions ?? []);
  const id = newId();
  const inTx = (fn: (tx: Queryable) => Promise<Workflow>) =>
    db instanceof pg.Pool ? withTx(db, fn) : fn(db);
  return inTx(async (tx) => {
    await insertWorkflow(tx, accountId, { id, name, by });
    await saveVersions(tx, accountId, id, versions, by, externalsUrl);
    const row = await findWorkflow(tx, accountId, id);
    return presentWorkflow(row as NonNullable<typeof row>, await versionsOf(tx, accountId, [id]));
  });
}

function templateOf(input: WorkflowInput): WorkflowTemplate {
  // Which one would win is not obvious to a reader of the request: refuse rather than guess.
  if (input.versions?.length) {
    fail(
      'WF-019',
      'Give either `templateId` or `versions`, not both: edit the new workflow with PUT instead.',
    );
  }
  const templateId = input.templateId as string;
  return (
    findWorkflowTemplate(templateId) ??
    fail('WF-018', `Workflow template "${templateId}" not found (GET …/workflowtemplates lists them).`)
  );
}
