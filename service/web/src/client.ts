/**
 * A small fetch client typed by `api.d.ts`, the types openapi-typescript generates from
 * `openapi/openapi.json` (`make openapi`): request bodies and answers are the spec's own,
 * and a problem+json answer becomes an `ApiError` carrying its `code` and `detail`.
 */

import type { components, paths } from "./api";

export type Schemas = components["schemas"];

type Method = "get" | "post";
type Json<C> = C extends { content: { "application/json": infer B } } ? B : never;
type Success<R> = R extends { 200: infer A } ? Json<A> : R extends { 201: infer A } ? Json<A> : never;
/** The JSON body a 200 or 201 answer of `paths[P][M]` carries. */
export type Answer<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: infer R }
  ? Success<R>
  : never;
/** The JSON body `paths[P][M]` takes. */
export type Body<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: infer B;
}
  ? Json<NonNullable<B>>
  : never;

/** A problem+json answer (RFC 9457) as an error: the status, `code`, `detail` and the rest. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: Record<string, unknown>;

  constructor(status: number, problem: Record<string, unknown>) {
    const detail = typeof problem["detail"] === "string" ? problem["detail"] : `HTTP ${status}`;
    super(detail);
    this.status = status;
    this.code = typeof problem["code"] === "string" ? problem["code"] : "";
    this.problem = problem;
  }
}

/** A random UUID v4 (the idempotency key of a POST, reused if it is sent again). */
export function newKey(): string {
  return crypto.randomUUID();
}

/**
 * Call one operation of the spec on this page's origin: `path` is the spec's path
 * template, `params` fill its `{...}` parts (encoded), `body` is sent as JSON.
 */
export async function call<P extends keyof paths, M extends Method>(
  method: M,
  path: P,
  options: {
    params?: Record<string, string | number>;
    query?: Record<string, string | number>;
    body?: Body<P, M>;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer<P, M>> {
  let url = String(path).replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = options.params?.[name];
    if (value === undefined) throw new TypeError(`no value for {${name}} in ${String(path)}`);
    return encodeURIComponent(String(value));
  });
  if (options.query) {
    url += `?${new URLSearchParams(Object.entries(options.query).map(([k, v]) => [k, String(v)]))}`;
  }
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  const init: RequestInit = { method: method.toUpperCase(), headers, credentials: "omit" };
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { detail: text.slice(0, 200) };
  }
  if (!response.ok) {
    throw new ApiError(response.status, (parsed ?? {}) as Record<string, unknown>);
  }
  return parsed as Answer<P, M>;
}
