/**
 * The route-handler wrapper (docs/design.md "Errors"; modelled on dubinc/dub's
 * `withWorkspace`): who may call, the path params, the query and the JSON body parsed with
 * zod, and the only try/catch — every error becomes one JSON answer through
 * lib/errors.ts `toErrorResponse` (`{ error, code, … }`, a request id on 5xx). A handler is
 * the business call and nothing else: it returns a `Response`, or a value sent as JSON.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { getSessionUser, type SessionUser } from "@/lib/auth/session";
import { AppError, toErrorResponse, type ErrorKind } from "@/lib/errors";
import { PRIVATE_NO_STORE } from "@/lib/http/cache";

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
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler receives. `user` is set whenever `who` is not "anyone" (and when a session exists). */
export interface RouteCall<P, Q, B, W extends Caller> {
  req: Request;
  params: P;
  query: Q;
  body: B;
  user: W extends "anyone" ? SessionUser | null : SessionUser;
  requestId: string;
}

/** Parses `value` with `schema`, or throws the AppError of `kind` with the schema's message. */
function parse<S extends z.ZodType>(schema: S, value: unknown, kind: ErrorKind, code: string): z.output<S> {
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
      const who = spec.who ?? "anyone";
      const user = who === "anyone" && !spec.signIn ? null : await getSessionUser(req.headers);
      if (who !== "anyone" && !user) throw new AppError("unauthorized", "sign_in_required", spec.signIn ?? "Sign in first.");
      if (who === "organizer" && user!.role !== "organizer") throw new AppError("forbidden", "organizers_only", "This is for the show's organizer only.");
      const params = spec.params ? parse(spec.params, await ctx.params, spec.badParams ?? "not_found", spec.badParams === "bad_request" ? "invalid_input" : "not_found") : undefined;
      const query = spec.query ? parse(spec.query, Object.fromEntries(new URL(req.url).searchParams), "bad_request", "invalid_input") : undefined;
      let body: unknown;
      if (spec.body) {
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
      const result = await handler({ req, params, query, body, user, requestId } as RouteCall<Out<P>, Out<Q>, Out<B>, W>);
      if (result instanceof Response) return result;
      return Response.json(result ?? {}, { headers: { "Cache-Control": spec.cache ?? PRIVATE_NO_STORE } });
    } catch (error) {
      return toErrorResponse(error, requestId);
    }
  };
}
