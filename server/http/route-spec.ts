import type { z } from 'zod';
import { answerResponse, webExchange, type Answer, type Exchange } from './exchange';
import type { PartnerServices } from './services';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** The methods whose requests carry a JSON body. */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** What a route declares once: it drives validation, the handler's types and the OpenAPI document. */
export interface RouteSpec {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** false for public routes (the OpenAPI document itself). */
  auth: boolean;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  response: { status: 200 | 201 | 202 | 204; schema: z.ZodType; description: string };
  /** A second success answer of another shape (a dry run's 200 beside the 202 of the real thing). */
  alternative?: { status: 200 | 201 | 202 | 204; schema: z.ZodType; description: string };
  /** Statuses beyond the ones every authenticated route can return. */
  errors?: { status: number; description: string }[];
}

/**
 * Next's route context, plus the process's services. Partner routes are served only by the front
 * door (server/http/front-door.ts), which passes them; Next never does.
 */
export type RouteContext<S = PartnerServices> = { params: Promise<Record<string, string | string[] | undefined>>; services?: S };
export type WebHandler<S = PartnerServices> = (request: Request, context: RouteContext<S>) => Promise<Response>;
/** A route served from any Exchange: what the front door calls with node:http's request (exchange.ts). */
export type ServeExchange = (
  exchange: Exchange,
  params: Record<string, string | string[] | undefined>,
  services: PartnerServices,
) => Promise<Answer>;
export type SpecifiedHandler = WebHandler & { spec: RouteSpec; serve: ServeExchange };

/** A partner-facing route: `serve` for the front door's native path, and the Web-standard export around it. */
export function specifiedHandler(spec: RouteSpec, serve: ServeExchange): SpecifiedHandler {
  const web: WebHandler = async (request, context) =>
    answerResponse(await serve(webExchange(request), await context.params, servicesOf(context)));
  return Object.assign(web, { spec, serve });
}

export function isSpecifiedHandler(value: unknown): value is SpecifiedHandler {
  return typeof value === 'function' && 'spec' in value && 'serve' in value;
}

/** The services the front door passed, or an error naming the mistake (a partner route reached through Next). */
export function servicesOf(context: RouteContext): PartnerServices {
  if (!context.services) throw new Error('partner routes are served by the front door (server/http/front-door.ts), not through Next');
  return context.services;
}
