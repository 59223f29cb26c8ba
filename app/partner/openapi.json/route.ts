import { publicRoute } from '@/server/http/public-route';

export const GET = publicRoute({
  operationId: 'getOpenApiDocument',
  summary: 'This OpenAPI 3.1 document',
  description: 'In the version `?version=` names, the latest by default.',
  tag: 'Meta',
  handler: ({ services, version }) => services.openApiDocument(version),
});
