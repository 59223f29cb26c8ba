import { publicRoute } from '@/server/http/public-route';

export const GET = publicRoute({
  operationId: 'getOpenApiDocument',
  summary: 'This OpenAPI 3.1 document',
  tag: 'Meta',
  handler: ({ services }) => services.openApiDocument(),
});
