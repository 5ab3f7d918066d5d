"use client";
/**
 * The organizer's show form (new and edit), the publish button, and a view-only seat-map
 * preview. Validation happens on the server (app/admin/events/actions.ts → lib/events/manage);
 * this component only shows the values and the per-field messages it gets back.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useActionState, useRef, useState } from "react";
import { SeatMap } from "@/components/seat-map";
import type { EventFormValues, PriceLevelFormValues } from "@/lib/events/form";
import type { VenueSection, VenueSummary } from "@/lib/venues/queries";

/** What the show form's server action returns: per-field messages (keys like `priceLevels.1.price`), the values to show again, a form-wide message. */
export interface EventFormState {
  errors: Record<string, string>;
  values?: EventFormValues;
  message?: string;
  /** Changes with every answer, so the form re-renders with the returned values. */
  at?: number;
}

/** What the publish action returns when it could not publish. */
export interface PublishState {
  error?: string;
}

const PALETTE = ["#7c3aed", "#0d9488", "#e11d48", "#f59e0b", "#2563eb", "#16a34a", "#db2777", "#0891b2"];
const MAX_LEVELS = 8;
const input = "mt-1 w-full rounded bg-black/40 px-3 py-2";

const slugify = (s: string) =>
  s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);

function FieldError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} className="mt-1 text-sm text-red-300" data-testid={`error-${id.replace(/^err-/, "")}`}>
      {message}
    </p>
  );
}

/** A labelled input with its error underneath. */
function Field({
  name,
  label,
  error,
  defaultValue,
  type = "text",
  hint,
  required,
  inputMode,
  onChange,
}: {
  name: string;
  label: string;
  error?: string;
  defaultValue: string;
  type?: string;
  hint?: string;
  required?: boolean;
  inputMode?: "numeric" | "decimal" | "text";
  onChange?: (e: React.ChangeEvent<HTMLInputElement>) => void;
}) {
  const errId = `err-${name}`;
  return (
    <label className="block text-sm">
      {label}
      <input
        name={name}
        type={type}
        defaultValue={defaultValue}
        required={required}
        inputMode={inputMode}
        onChange={onChange}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errId : undefined}
        className={`${input} ${error ? "ring-2 ring-red-400/70" : ""}`}
      />
      {hint && <span className="mt-1 block text-xs text-white/50">{hint}</span>}
      <FieldError id={errId} message={error} />
    </label>
  );
}

/**
 * A venue-local date and time as two text inputs, `YYYY-MM-DD` and 24-hour `HH:mm` (not the
 * browser's date-time picker, which shows the browser's own locale and 12-hour clock), with the
 * venue's time zone beside them. Submitted as `<name>Date` and `<name>Time`; lib/events/form.ts
 * joins them into the `"YYYY-MM-DDTHH:mm"` the server converts from the venue's zone.
 */
function LocalDateTimeField({ name, label, defaultValue, error, timeZone }: { name: string; label: string; defaultValue: string; error?: string; timeZone?: string }) {
  const errId = `err-${name}`;
  const split = /^(\S*)[T ](.*)$/.exec(defaultValue);
  const [date, time] = split ? [split[1]!, split[2]!] : [defaultValue, ""];
  const ring = error ? "ring-2 ring-red-400/70" : "";
  return (
    <fieldset className="block text-sm" data-testid={`field-${name}`}>
      <legend>{label}</legend>
      <div className="flex gap-2">
        <label className="flex-1">
          <span className="sr-only">{label} — date</span>
          <input
            name={`${name}Date`}
            defaultValue={date}
            required
            placeholder="YYYY-MM-DD"
            pattern="\d{4}-\d{2}-\d{2}"
            inputMode="numeric"
            autoComplete="off"
            aria-label={`${label} date`}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errId : undefined}
            className={`${input} font-mono ${ring}`}
          />
        </label>
        <label className="w-28">
          <span className="sr-only">{label} — time</span>
          <input
            name={`${name}Time`}
            defaultValue={time}
            required
            placeholder="HH:mm"
            pattern="([01]\d|2[0-3]):[0-5]\d"
            inputMode="numeric"
            autoComplete="off"
            aria-label={`${label} time`}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errId : undefined}
            className={`${input} font-mono ${ring}`}
          />
        </label>
      </div>
      <span className="mt-1 block text-xs text-white/50">
        Date as YYYY-MM-DD, time on the 24-hour clock (20:00){timeZone ? `, ${timeZone}` : ""}
      </span>
      <FieldError id={errId} message={error} />
    </fieldset>
  );
}

type LevelRow = { key: number; values: PriceLevelFormValues };

/** Tiers and sections of a venue, for the seat-rule hint. */
function SeatRuleHint({ sections }: { sections: VenueSection[] }) {
  if (sections.length === 0) return null;
  const tiers = new Map<string, VenueSection[]>();
  for (const s of sections) tiers.set(s.tier, [...(tiers.get(s.tier) ?? []), s]);
  return (
    <div className="rounded-lg border border-white/10 bg-black/20 p-3 text-xs text-white/60" data-testid="venue-sections">
      <p className="mb-1 font-semibold text-white/80">This venue&apos;s tiers and sections (row 1 is nearest the stage)</p>
      <ul className="space-y-0.5">
        {[...tiers].map(([tier, secs]) => (
          <li key={tier}>
            <span className="font-mono text-white/80">{tier}</span>: {secs.length === 1 ? "section" : "sections"}{" "}
            <span className="font-mono">{secs.map((s) => s.code).join(", ")}</span> · up to {Math.max(...secs.map((s) => s.rows))} rows
          </li>
        ))}
      </ul>
      <p className="mt-1">
        A level takes the seats that match all of its tier, section and row criteria and that no earlier level took. Leave all three empty to take every
        remaining seat.
      </p>
    </div>
  );
}

/**
 * The show form. `mode="create"` adds the venue picker and the slug; `levelsEditable=false`
 * shows the price levels read-only (they are not submitted, so they stay as they are).
 */
export function EventForm(props: {
  mode: "create" | "edit";
  action: (state: EventFormState, form: FormData) => Promise<EventFormState>;
  initial: EventFormValues;
  venues: VenueSummary[];
  sectionsByVenue: Record<string, VenueSection[]>;
  levelsEditable: boolean;
  lockedMessage?: string;
  submitLabel: string;
}) {
  const [state, formAction, pending] = useActionState(props.action, { errors: {} });
  return <EventFormBody key={state.at ?? 0} {...props} state={state} formAction={formAction} pending={pending} />;
}

function EventFormBody({
  mode,
  initial,
  venues,
  sectionsByVenue,
  levelsEditable,
  lockedMessage,
  submitLabel,
  state,
  formAction,
  pending,
}: Parameters<typeof EventForm>[0] & { state: EventFormState; formAction: (form: FormData) => void; pending: boolean }) {
  const values = state.values ?? initial;
  const errors = state.errors;
  const [venueId, setVenueId] = useState(values.venueId);
  const [levels, setLevels] = useState<LevelRow[]>(() => values.priceLevels.map((v, key) => ({ key, values: v })));
  const nextKey = useRef(values.priceLevels.length);
  const [slug, setSlug] = useState(values.slug);
  const [slugTouched, setSlugTouched] = useState(values.slug !== "");
  const venue = venues.find((v) => v.id === venueId);
  const sections = sectionsByVenue[venueId] ?? [];
  const errorCount = Object.keys(errors).length;

  function addLevel() {
    const currency = levels[0]?.values.currency || "EUR";
    const key = nextKey.current++;
    setLevels((ls) => [...ls, { key, values: { name: "", price: "", currency, color: PALETTE[ls.length % PALETTE.length]!, tiers: "", sections: "", rows: "" } }]);
  }

  return (
    <form action={formAction} className="space-y-6" noValidate data-testid="event-form">
      {(errorCount > 0 || state.message) && (
        <div role="alert" className="rounded-lg border border-red-400/60 bg-red-500/10 p-3 text-sm text-red-200" data-testid="form-error">
          {state.message ?? "Some fields need attention — see the messages below."}
        </div>
      )}

      <fieldset className="space-y-4 rounded-xl border border-white/10 bg-white/5 p-5">
        <legend className="px-1 font-semibold">The show</legend>
        {mode === "create" ? (
          <label className="block text-sm">
            Venue
            <select
              name="venueId"
              defaultValue={values.venueId}
              onChange={(e) => setVenueId(e.target.value)}
              aria-invalid={errors.venueId ? true : undefined}
              aria-describedby={errors.venueId ? "err-venueId" : undefined}
              className={`${input} ${errors.venueId ? "ring-2 ring-red-400/70" : ""}`}
            >
              <option value="">Choose a venue…</option>
              {venues.map((v) => (
                <option key={v.id} value={v.id}>
                  {v.name} ({v.city}, {v.capacity.toLocaleString("en-GB")} seats)
                </option>
              ))}
            </select>
            <FieldError id="err-venueId" message={errors.venueId} />
          </label>
        ) : (
          <p className="text-sm text-white/70">
            Venue: <span className="text-white">{venue ? `${venue.name}, ${venue.city}` : "—"}</span> · address{" "}
            <span className="font-mono text-white">/events/{values.slug}</span>
          </p>
        )}
        <div className="grid gap-4 md:grid-cols-2">
          <Field
            name="name"
            label="Name"
            required
            defaultValue={values.name}
            error={errors.name}
            onChange={(e) => {
              if (mode === "create" && !slugTouched) setSlug(slugify(e.target.value));
            }}
          />
          {mode === "create" && (
            <label className="block text-sm">
              Slug (the show&apos;s address)
              <input
                name="slug"
                value={slug}
                required
                onChange={(e) => {
                  setSlug(e.target.value);
                  setSlugTouched(true);
                }}
                aria-invalid={errors.slug ? true : undefined}
                aria-describedby={errors.slug ? "err-slug" : undefined}
                className={`${input} ${errors.slug ? "ring-2 ring-red-400/70" : ""}`}
              />
              <span className="mt-1 block text-xs text-white/50">Lower-case letters, digits and dashes: /events/{slug || "your-slug"}</span>
              <FieldError id="err-slug" message={errors.slug} />
            </label>
          )}
        </div>
        <label className="block text-sm">
          Description
          <textarea
            name="description"
            defaultValue={values.description}
            rows={3}
            aria-invalid={errors.description ? true : undefined}
            className={`${input} ${errors.description ? "ring-2 ring-red-400/70" : ""}`}
          />
          <FieldError id="err-description" message={errors.description} />
        </label>
        <div className="grid gap-4 md:grid-cols-2">
          <LocalDateTimeField name="startsAt" label="Show starts" defaultValue={values.startsAt} error={errors.startsAt} timeZone={venue?.timeZone} />
          <LocalDateTimeField name="onSaleAt" label="On-sale opens" defaultValue={values.onSaleAt} error={errors.onSaleAt} timeZone={venue?.timeZone} />
        </div>
        <p className="text-sm text-white/60" data-testid="time-zone">
          {venue ? (
            <>
              Times are local to the venue: <span className="font-mono text-white/80">{venue.timeZone}</span>.
            </>
          ) : (
            "Times are local to the venue; choose a venue to see its time zone."
          )}
        </p>
      </fieldset>

      <fieldset className="grid gap-4 rounded-xl border border-white/10 bg-white/5 p-5 md:grid-cols-4">
        <legend className="px-1 font-semibold">Sale limits</legend>
        <Field name="holdMinutes" label="Hold minutes" inputMode="numeric" defaultValue={values.holdMinutes} error={errors.holdMinutes} hint="How long held seats wait for payment" />
        <Field name="perFanLimit" label="Per-fan limit" inputMode="numeric" defaultValue={values.perFanLimit} error={errors.perFanLimit} hint="Tickets one fan may buy" />
        <Field
          name="admissionRatePerMinute"
          label="Admission rate per minute"
          inputMode="numeric"
          defaultValue={values.admissionRatePerMinute}
          error={errors.admissionRatePerMinute}
          hint="Fans let out of the waiting room per minute"
        />
        <Field name="activeCap" label="Active cap" inputMode="numeric" defaultValue={values.activeCap} error={errors.activeCap} hint="Admitted fans shopping at once" />
      </fieldset>

      <fieldset className="space-y-4 rounded-xl border border-white/10 bg-white/5 p-5" data-testid="price-level-editor">
        <legend className="px-1 font-semibold">Price levels</legend>
        {!levelsEditable ? (
          <p className="text-sm text-amber-200" data-testid="levels-locked">
            {lockedMessage}
          </p>
        ) : (
          <>
            <SeatRuleHint sections={sections} />
            {errors.priceLevels && <FieldError id="err-priceLevels" message={errors.priceLevels} />}
            <ol className="space-y-4">
              {levels.map((row, i) => {
                const e = (f: string) => errors[`priceLevels.${i}.${f}`];
                const n = (f: string) => `levels.${i}.${f}`;
                return (
                  <li key={row.key} className="rounded-lg border border-white/10 bg-black/20 p-4" data-testid="price-level">
                    <div className="mb-3 flex items-center justify-between">
                      <h3 className="font-semibold">Price level {i + 1}</h3>
                      {levels.length > 1 && (
                        <button type="button" onClick={() => setLevels((ls) => ls.filter((l) => l.key !== row.key))} className="text-sm text-white/60 underline hover:text-white">
                          Remove level {i + 1}
                        </button>
                      )}
                    </div>
                    <div className="grid gap-3 md:grid-cols-4">
                      <Field name={n("name")} label={`Level ${i + 1} name`} defaultValue={row.values.name} error={e("name")} />
                      <Field name={n("price")} label={`Level ${i + 1} price`} inputMode="decimal" defaultValue={row.values.price} error={e("price")} hint="In major units, e.g. 79.00 or 79,00" />
                      <Field name={n("currency")} label={`Level ${i + 1} currency`} defaultValue={row.values.currency} error={e("currency")} hint="ISO code, e.g. EUR" />
                      <label className="block text-sm">
                        {`Level ${i + 1} colour`}
                        <input type="color" name={n("color")} defaultValue={row.values.color} className="mt-1 block h-10 w-full cursor-pointer rounded bg-black/40 p-1" />
                        <FieldError id={`err-${n("color")}`} message={e("color")} />
                      </label>
                      <Field name={n("tiers")} label={`Level ${i + 1} tiers`} defaultValue={row.values.tiers} error={e("tiers")} hint="Comma-separated, optional" />
                      <Field name={n("sections")} label={`Level ${i + 1} sections`} defaultValue={row.values.sections} error={e("sections")} hint="Section codes, comma-separated, optional" />
                      <Field name={n("rows")} label={`Level ${i + 1} rows`} defaultValue={row.values.rows} error={e("rows")} hint="Range from–to, e.g. 1–5, optional" />
                    </div>
                  </li>
                );
              })}
            </ol>
            {levels.length < MAX_LEVELS && (
              <button type="button" onClick={addLevel} className="rounded border border-white/20 px-3 py-1.5 text-sm hover:border-white/50">
                Add price level
              </button>
            )}
          </>
        )}
      </fieldset>

      <button type="submit" disabled={pending} className="button-primary px-5 py-2">
        {pending ? "Saving…" : submitLabel}
      </button>
    </form>
  );
}

/** "Publish" with a confirmation: a draft becomes visible on the home page. */
export function PublishButton({ action, name, onSaleText }: { action: () => Promise<PublishState>; name: string; onSaleText: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form
      action={formAction}
      onSubmit={(e) => {
        if (!window.confirm(`Publish "${name}"?\n\nIt appears on the home page at once, and sales open ${onSaleText}.`)) e.preventDefault();
      }}
      className="flex flex-wrap items-center gap-3"
    >
      <button type="submit" disabled={pending} className="rounded bg-emerald-500 px-5 py-2 font-semibold text-black hover:bg-emerald-400 disabled:opacity-50">
        {pending ? "Publishing…" : "Publish"}
      </button>
      {state.error && (
        <p role="alert" className="text-sm text-red-300">
          {state.error}
        </p>
      )}
    </form>
  );
}

/**
 * The seat map as a view-only preview. It gets its own query cache, re-created when
 * `version` (the show's last update) changes, so a saved change is drawn at once instead
 * of the map cached earlier in this tab.
 */
export function SeatMapPreview({ eventId, version }: { eventId: string; version: number }) {
  return <PreviewInner key={version} eventId={eventId} />;
}

function PreviewInner({ eventId }: { eventId: string }) {
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: 2 } } }));
  return (
    <QueryClientProvider client={client}>
      <SeatMap eventId={eventId} />
    </QueryClientProvider>
  );
}
