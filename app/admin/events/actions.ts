"use server";
/**
 * Server actions of the organizer's show set-up. Thin: parse the FormData with the zod
 * schemas of lib/events/manage, check the organizer (and that they own the show), call
 * one lib function, and turn its typed errors into per-field messages — never a 500 for
 * bad input.
 */
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { requireOrganizer, requireOrganizerOfEvent } from "@/lib/auth/session";
import { db } from "@/lib/db";
import {
  createEventFromForm,
  eventCreateFormSchema,
  eventEditFormSchema,
  eventFormFromFormData,
  eventFormValues,
  EventSetupError,
  fieldErrors,
  publishEvent,
  updateEventFromForm,
} from "@/lib/events/manage";
import type { EventFormState, PublishState } from "./event-form";

/** The form's answer for a typed set-up error: under its field when it has one, else form-wide. */
function failure(raw: Record<string, unknown>, errors: Record<string, string>, message?: string): EventFormState {
  return { errors, values: eventFormValues(raw), at: Date.now(), ...(message ? { message } : {}) };
}

function setupFailure(raw: Record<string, unknown>, error: unknown): EventFormState | null {
  if (!(error instanceof EventSetupError)) return null;
  return error.field ? failure(raw, { [error.field]: error.message }) : failure(raw, {}, error.message);
}

/** Creates a draft show from the "new show" form, then opens its edit page. */
export async function createEventAction(_prev: EventFormState, form: FormData): Promise<EventFormState> {
  const organizer = await requireOrganizer("/admin/events/new");
  const raw = eventFormFromFormData(form);
  const parsed = eventCreateFormSchema.safeParse(raw);
  if (!parsed.success) return failure(raw, fieldErrors(parsed.error));
  let eventId: string;
  try {
    ({ eventId } = await createEventFromForm(db(), organizer.id, parsed.data));
  } catch (error) {
    const state = setupFailure(raw, error);
    if (state) return state;
    throw error;
  }
  revalidatePath("/admin");
  redirect(`/admin/events/${eventId}/edit?created=1`);
}

/** Saves the "edit show" form of `eventId` (bound by the page), then reloads the edit page. */
export async function updateEventAction(eventId: string, _prev: EventFormState, form: FormData): Promise<EventFormState> {
  const { user, event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/edit`);
  const raw = eventFormFromFormData(form);
  const parsed = eventEditFormSchema.safeParse(raw);
  if (!parsed.success) return failure(raw, fieldErrors(parsed.error));
  try {
    await updateEventFromForm(db(), event.id, user.id, parsed.data);
  } catch (error) {
    const state = setupFailure(raw, error);
    if (state) return state;
    throw error;
  }
  revalidatePath("/admin");
  if (event.status === "published") revalidatePath(`/events/${event.slug}`);
  redirect(`/admin/events/${event.id}/edit?saved=1`);
}

/** Publishes the draft `eventId` (bound by the page); publishing an already published show changes nothing. */
export async function publishEventAction(eventId: string): Promise<PublishState> {
  const { user, event } = await requireOrganizerOfEvent(eventId, `/admin/events/${eventId}/edit`);
  try {
    await publishEvent(db(), event.id, user.id);
  } catch (error) {
    if (error instanceof EventSetupError) return { error: error.message };
    throw error;
  }
  revalidatePath("/");
  revalidatePath("/admin");
  revalidatePath(`/events/${event.slug}`);
  redirect(`/admin/events/${event.id}/edit?published=1`);
}
