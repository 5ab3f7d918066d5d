/**
 * The route-handler wrapper (docs/design.md "Errors"; modelled on dubinc/dub's
 * `withWorkspace`): same-origin writes (lib/http/origin.ts), who may call, the path params,
 * the query and the JSON body (application/json only) parsed with zod, and the only try/catch — every error becomes one JSON answer through
 * lib/errors.ts `toErrorResponse` (`{ error, code, … }`, a request id on 5xx). A handler is
 * the business call and nothing else: it returns a `Response`, or a value sent as JSON.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { getSessionUser, type SessionUser } from "@/lib/auth/session";
import { clientIp } from "@/lib/client-ip";
import { appOrigins, env } from "@/lib/env";
import { AppError, postgresUnavailable, toErrorResponse, type ErrorKind } from "@/lib/errors";
import { localeOfRequest } from "@/lib/i18n/config";
import { checkHealth } from "@/lib/health";
import { PRIVATE_NO_STORE } from "@/lib/http/cache";
import { controlCharacterRefusal } from "@/lib/http/input";
import { crossOriginRefusal, SAFE_METHODS } from "@/lib/http/origin";

/** Who may call: anyone, any signed-in user, or an organizer. */
export type Caller = "anyone" | "user" | "organizer";

/** What a route declares. Schemas are zod; their first issue's message is what the caller reads. */
export interface RouteSpec<P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | undefined, W extends Caller> {
  who?: W;
  /** The 401 message for a signed-out caller (default "Sign in first."). */
  signIn?: string;
  params?: P;
  /** How a malformed path param is answered (default `not_found`: an id that cannot exist names nothing). */
  badParams?: Extract<ErrorKind, "not_found" | "bad_request">;
  query?: Q;
  body?: B;
  /** Shown when the body is not JSON at all (default: "The body must be JSON."). */
  bodyHint?: string;
  /** Largest JSON body accepted, in bytes (default 64 kB); larger ones are refused with 413 before parsing. */
  maxBodyBytes?: number;
  /** Cache-Control of a value answered as JSON (default `private, no-store`). */
  cache?: string;
  /**
   * Who may send a state-changing request (POST, PUT, PATCH, DELETE): "same" (default) — the
   * app's own pages only (lib/http/origin.ts), 403 otherwise; "signed" — anyone, because the
   * handler verifies a signature instead (webhooks, the PSP's callbacks). Say why beside it.
   */
  origin?: "same" | "signed";
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler receives. `user` is set whenever `who` is not "anyone" (and when a session exists). */
export interface RouteCall<P, Q, B, W extends Caller> {
  req: Request;
  params: P;
  query: Q;
  body: B;
  user: W extends "anyone" ? SessionUser | null : SessionUser;
  /** The caller's address as the server resolved it from the network (lib/client-ip.ts), or "unknown". */
  ip: string;
  requestId: string;
}

/** Parses `value` with `schema`, or throws the AppError of `kind` with the schema's message (control characters: 400 first). */
function parse<S extends z.ZodType>(schema: S, value: unknown, kind: ErrorKind, code: string): z.output<S> {
  const dirty = controlCharacterRefusal(value);
  if (dirty) throw kind === "not_found" ? new AppError("not_found", code, "There is nothing at this address.") : dirty;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new AppError(kind, code, issue?.message ?? "Invalid request", { field: issue?.path.length ? issue.path.join(".") : undefined });
}

/**
 * Wraps a route handler.
 * @returns a Next route handler `(req, { params }) → Response`.
 */
export function route<P extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined, W extends Caller = "anyone">(
  spec: RouteSpec<P, Q, B, W>,
  handler: (call: RouteCall<Out<P>, Out<Q>, Out<B>, W>) => Promise<unknown> | unknown,
): (req: Request, ctx: { params: Promise<Record<string, string | string[] | undefined>> }) => Promise<Response> {
  return async (req, ctx) => {
    const requestId = randomUUID();
    try {
      if (!SAFE_METHODS.has(req.method) && spec.origin !== "signed") {
        const refusal = crossOriginRefusal(req.headers, appOrigins(env()));
        if (refusal) throw refusal;
      }
      const who = spec.who ?? "anyone";
      const user = who === "anyone" && !spec.signIn ? null : await getSessionUser(req.headers);
      if (who !== "anyone" && !user) throw new AppError("unauthorized", "sign_in_required", spec.signIn ?? "Sign in first.");
      if (who === "organizer" && user!.role !== "organizer") throw new AppError("forbidden", "organizers_only", "This is for the show's organizer only.");
      const params = spec.params ? parse(spec.params, await ctx.params, spec.badParams ?? "not_found", spec.badParams === "bad_request" ? "invalid_input" : "not_found") : undefined;
      const query = spec.query ? parse(spec.query, Object.fromEntries(new URL(req.url).searchParams), "bad_request", "invalid_input") : undefined;
      let body: unknown;
      if (spec.body) {
        const type = req.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
        // JSON only: a form or text/plain body is what a cross-site page can send without asking.
        if (type !== "application/json") throw new AppError("unsupported_media_type", "json_required", "Send the body as JSON (Content-Type: application/json).");
        const limit = spec.maxBodyBytes ?? 64 * 1024;
        const tooLarge = () => new AppError("payload_too_large", "body_too_large", `The body is larger than ${Math.round(limit / 1024)} kB.`);
        if (Number(req.headers.get("content-length") ?? 0) > limit) throw tooLarge();
        const text = await req.text();
        if (Buffer.byteLength(text) > limit) throw tooLarge();
        let raw: unknown;
        try {
          raw = JSON.parse(text);
        } catch {
          throw new AppError("bad_request", "invalid_json", spec.bodyHint ?? "The body must be JSON.");
        }
        body = parse(spec.body, raw, "bad_request", "invalid_input");
      }
      const result = await handler({ req, params, query, body, user, ip: clientIp(req.headers), requestId } as RouteCall<Out<P>, Out<Q>, Out<B>, W>);
      if (result instanceof Response) return result;
      return Response.json(result ?? {}, { headers: { "Cache-Control": spec.cache ?? PRIVATE_NO_STORE } });
    } catch (error) {
      return toErrorResponse(error, requestId, localeOfRequest(req.headers));
    }
  };
}

/**
 * Wraps a library's own handler (better-auth's endpoints) with the input rule every route
 * follows: a JSON body holding a control character is refused with 400 before the library
 * sees it (lib/http/input.ts), and anything it throws — or a 5xx it answers itself — is
 * answered through the one error model (503 when Postgres is down). The library keeps its
 * own origin checks, sessions and responses.
 */
export function libraryRoute(handler: (req: Request) => Promise<Response>): (req: Request) => Promise<Response> {
  return async (req) => {
    const requestId = randomUUID();
    try {
      if (!SAFE_METHODS.has(req.method) && req.headers.get("content-type")?.includes("json")) {
        const dirty = controlCharacterRefusal(await req.clone().json().catch(() => null));
        if (dirty) throw dirty;
      }
      const res = await handler(req);
      if (res.status < 500) return res;
      // The library answered 5xx on its own (better-auth does when Postgres is down, with an
      // empty body): say what happened, with a body — 503 when the database is the cause.
      const health = await checkHealth();
      if (health.postgres !== "ok") throw postgresUnavailable(health.postgres);
      throw new Error(`${req.method} ${new URL(req.url).pathname}: the library answered ${res.status}`);
    } catch (error) {
      return toErrorResponse(error, requestId, localeOfRequest(req.headers));
    }
  };
}
