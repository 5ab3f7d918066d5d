"use server";
/**
 * Server actions of the organizer's show set-up. Thin: parse the FormData with the zod
 * schemas of lib/events/form, check the organizer (and that they own the show), call one
 * lib function. A refusal comes back as form state: under its field when it has one
 * (lib/http/action.ts `onError`), else form-wide — never a 500 for bad input. Every message
 * is in the request's language: the form's problems worded here, refusals by the wrapper.
 */
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import type { ActionFailure } from "@/lib/errors";
import { eventCreateFormSchema, eventEditFormSchema, eventFormFromFormData, eventFormValues, fieldErrors, formProblemText } from "@/lib/events/form";
import { createEventFromForm, publishEvent, updateEventFromForm } from "@/lib/events/setup";
import { action } from "@/lib/http/action";
import { requestLocale } from "@/lib/i18n/request-locale";
import { eventIdSchema } from "@/lib/ids";
import type { EventFormState, PublishState } from "./event-form";

/** The form's answer: per-field errors, the values typed, and a form-wide message. */
function formState(raw: Record<string, unknown>, errors: Record<string, string>, message?: string): EventFormState {
  return { errors, values: eventFormValues(raw), at: Date.now(), ...(message ? { message } : {}) };
}

/** The form's problems (zod's, as codes) in the request's language, per field. */
async function problemWords(error: z.ZodError): Promise<Record<string, string>> {
  const locale = await requestLocale();
  return Object.fromEntries(Object.entries(fieldErrors(error)).map(([field, problem]) => [field, formProblemText(locale, problem)]));
}

/** A refusal shown under its field when it has one, else form-wide (the form's FormData is the last argument). */
function formFailure(failure: ActionFailure, args: unknown[]): EventFormState {
  const data = args.at(-1);
  const raw = data instanceof FormData ? eventFormFromFormData(data) : {};
  return failure.field ? formState(raw, { [failure.field]: failure.error }) : formState(raw, {}, failure.error);
}

const formArgs = z.tuple([z.unknown(), z.instanceof(FormData)]);

/** Creates a draft show from the "new show" form, then opens its edit page. */
export const createEventAction = action(
  { who: { organizer: true, returnTo: "/admin/events/new" }, args: formArgs, onError: formFailure },
  async ({ user }, _prev, form): Promise<EventFormState> => {
    const raw = eventFormFromFormData(form);
    const parsed = eventCreateFormSchema.safeParse(raw);
    if (!parsed.success) return formState(raw, await problemWords(parsed.error));
    const { eventId } = await createEventFromForm(db(), user.id, parsed.data);
    revalidatePath("/admin");
    redirect(`/admin/events/${eventId}/edit?created=1`);
  },
);

/** Saves the "edit show" form of `eventId` (bound by the page), then reloads the edit page. */
export const updateEventAction = action(
  { who: { organizer: true }, args: z.tuple([eventIdSchema, z.unknown(), z.instanceof(FormData)]), onError: formFailure },
  async (_call, eventId, _prev, form): Promise<EventFormState> => {
    const { user, event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/edit`);
    const raw = eventFormFromFormData(form);
    const parsed = eventEditFormSchema.safeParse(raw);
    if (!parsed.success) return formState(raw, await problemWords(parsed.error));
    await updateEventFromForm(db(), event.id, user.id, parsed.data);
    revalidatePath("/admin");
    if (event.status === "published") revalidatePath(`/events/${event.slug}`);
    redirect(`/admin/events/${event.id}/edit?saved=1`);
  },
);

/** Publishes the draft `eventId` (bound by the page); publishing an already published show changes nothing. */
export const publishEventAction = action(
  // Bound to the show by the page; React adds the previous state and the form data.
  { who: { organizer: true }, args: z.tuple([eventIdSchema]).rest(z.unknown()), onError: (failure): PublishState => ({ error: failure.error }) },
  async (_call, eventId): Promise<PublishState> => {
    const { user, event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/edit`);
    await publishEvent(db(), event.id, user.id);
    revalidatePath("/");
    revalidatePath("/admin");
    revalidatePath(`/events/${event.slug}`);
    redirect(`/admin/events/${event.id}/edit?published=1`);
  },
);
