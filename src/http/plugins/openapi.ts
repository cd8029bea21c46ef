import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../schemas/scopes.ts';
import { webhookEventsOpenApi } from '../../schemas/webhooks.ts';

/** OpenAPI 3.1 generated from the route schemas, at /openapi.json, with a reference UI at /docs. */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string) {
  // Each operation names the scope its route declares, so the document says what a token needs.
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    if (scope && route.schema) route.schema.security = [{ oauth2: [scope] }];
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sparrow messaging API',
        version: '1.0.2',
        description:
          'Open, self-hostable SMS messaging. Every response uses the envelope `{success, data, pagination?}`; ' +
          'errors are `{success: false, error: {code, message, description}}`.',
      },
      servers: [{ url: publicUrl }],
      // The notifications Sparrow POSTs to subscribers, one per event type.
      webhooks: webhookEventsOpenApi() as Record<string, never>,
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            flows: {
              clientCredentials: {
                tokenUrl: `${publicUrl}/oauth2/token`,
                scopes: Object.fromEntries(SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]])),
              },
            },
          },
        },
      },
    },
    hideUntagged: false,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
