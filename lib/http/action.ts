/**
 * The server-action wrapper: who may call, the arguments parsed with one zod tuple, and
 * the only try/catch. A refusal comes back as an {@link ActionFailure} (`{ ok: false,
 * error, code, field? }`, lib/errors.ts `toActionError`) — or, for actions whose page keeps
 * its own state shape (a form with per-field errors, the door's scan result), as whatever
 * `onError` makes of it. Next's own control flow (`redirect()`, `notFound()`,
 * `forbidden()`) passes through untouched.
 */
import { randomUUID } from "node:crypto";
import { unstable_rethrow } from "next/navigation";
import { z } from "zod";
import { getSessionUser, requireCheckInStaff, requireOrganizer, requireUser, type SessionUser } from "@/lib/auth/session";
import { AppError, toActionError, type ActionFailure } from "@/lib/errors";
import { controlCharacterRefusal } from "@/lib/http/input";
import { requestLocale } from "@/lib/i18n/request-locale";

/** Who may call, and what happens to others. */
export type ActionCaller =
  /** Anyone, signed in or not (e.g. the sandbox PSP's own pay page). */
  | "anyone"
  /** Any signed-in user; a signed-out caller gets a `sign_in_required` failure (the page offers to sign in). */
  | "user"
  /** Any signed-in user; a signed-out caller is redirected to sign in and back to `returnTo`. */
  | { redirectTo: string }
  /** An organizer (a fan or door staff gets 403, a signed-out caller is sent to sign in and back to `returnTo`). */
  | { organizer: true; returnTo?: string }
  /** Check-in at the door: an organizer or door staff (a fan gets 403; signed out → sign in and back to `returnTo`). */
  | { checkIn: true; returnTo?: string };

/** The caller of an "anyone" action: nobody in particular. */
const ANONYMOUS: SessionUser = Object.freeze({ id: "", email: "", name: "", role: "fan" as const });

/** What an action declares. */
export interface ActionSpec<A extends z.ZodType<unknown[]>, R> {
  who: ActionCaller;
  /** The arguments, as one tuple schema (e.g. `z.tuple([eventIdSchema, holdRequestSchema])`). */
  args: A;
  /** Turns a refusal into this action's own result shape; default: the ActionFailure itself. */
  onError?: (failure: ActionFailure, args: unknown[]) => R;
}

/**
 * Wraps a server action.
 * @returns the action: the handler's result, or the refusal (see {@link ActionSpec.onError}).
 */
export function action<A extends z.ZodType<unknown[]>, R, F = ActionFailure>(
  spec: ActionSpec<A, F>,
  handler: (call: { user: SessionUser; requestId: string }, ...args: z.output<A>) => Promise<R>,
  // ("anyone" actions get a placeholder user they must not use; their handlers ignore `user`.)
): (...args: unknown[]) => Promise<R | F> {
  return async (...args: unknown[]) => {
    const requestId = randomUUID();
    try {
      let user: SessionUser | null;
      if (spec.who === "anyone") {
        user = ANONYMOUS;
      } else if (spec.who === "user") {
        user = await getSessionUser();
        if (!user) throw new AppError("unauthorized", "sign_in_required", "Sign in first.");
      } else if ("redirectTo" in spec.who) {
        user = await requireUser(spec.who.redirectTo);
      } else if ("checkIn" in spec.who) {
        user = (await requireCheckInStaff(spec.who.returnTo)).user;
      } else {
        user = await requireOrganizer(spec.who.returnTo);
      }
      // Input hygiene (lib/http/input.ts) over every argument the action reads; one it declares
      // as z.unknown() (a form's previous state, echoed back by the page) is not read, so not judged.
      const items = spec.args instanceof z.ZodTuple ? (spec.args.def.items as z.ZodType[]) : [];
      for (const [i, arg] of args.entries()) {
        if (items[i] instanceof z.ZodUnknown || items[i] instanceof z.ZodAny) continue;
        const dirty = controlCharacterRefusal(arg);
        if (dirty) throw dirty;
      }
      const parsed = spec.args.safeParse(args);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        // An argument the page itself sends (an id, a nonce) that does not parse: the page is out of date or tampered with.
        throw new AppError("bad_request", "invalid_input", issue?.message ?? "This page is out of date. Reload it and try again.", {
          field: issue && issue.path.length > 1 ? issue.path.slice(1).join(".") : undefined,
        });
      }
      return await handler({ user, requestId }, ...(parsed.data as z.output<A>));
    } catch (error) {
      unstable_rethrow(error);
      const failure = toActionError(error, requestId, await requestLocale());
      return spec.onError ? spec.onError(failure, args) : (failure as F);
    }
  };
}
