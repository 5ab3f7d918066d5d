"use client";
/**
 * The organizer's show form (new and edit), the publish button, and a view-only seat-map
 * preview. Validation happens on the server (app/admin/events/actions.ts → lib/events/form.ts,
 * lib/events/setup.ts); this component only shows the values and the per-field messages it
 * gets back, wording the form's problem codes in the page's language (EventForm catalogue).
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useLocale, useTranslations } from "next-intl";
import { useActionState, useRef, useState } from "react";
import { SeatMap } from "@/components/seat-map";
import type { EventFormValues, PriceLevelFormValues } from "@/lib/events/form";
import { decodeFormProblem } from "@/lib/events/form-problems";
import { DEFAULT_LOCALE, intlLocale } from "@/lib/i18n/config";
import type { VenueSection, VenueSummary } from "@/lib/venues/queries";

/**
 * What the show form's server action returns: per-field messages (keys like `priceLevels.1.price`),
 * each a problem code of lib/events/form-problems.ts or an AppError's message already in words;
 * the values to show again; a form-wide message.
 */
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

/** A field's message in the page's language: a problem code worded through `EventForm.errors`, other text as it came. */
function useProblemWords(): (message: string) => string {
  const t = useTranslations("EventForm.errors");
  const locale = useLocale();
  return (message) => {
    const problem = decodeFormProblem(message);
    if (!problem) return message;
    if (problem.english && locale === DEFAULT_LOCALE) return problem.english;
    return t(problem.code, problem.params as never);
  };
}

function FieldError({ id, message }: { id: string; message?: string }) {
  const words = useProblemWords();
  if (!message) return null;
  return (
    <p id={id} className="mt-1 text-sm text-red-300" data-testid={`error-${id.replace(/^err-/, "")}`}>
      {words(message)}
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
  const t = useTranslations("EventForm");
  const errId = `err-${name}`;
  const split = /^(\S*)[T ](.*)$/.exec(defaultValue);
  const [date, time] = split ? [split[1]!, split[2]!] : [defaultValue, ""];
  const ring = error ? "ring-2 ring-red-400/70" : "";
  return (
    <fieldset className="block text-sm" data-testid={`field-${name}`}>
      <legend>{label}</legend>
      <div className="flex gap-2">
        <label className="min-w-0 flex-1">
          <span className="sr-only">{t("dateOf", { label })}</span>
          <input
            name={`${name}Date`}
            defaultValue={date}
            required
            placeholder={t("datePlaceholder")}
            pattern="\d{4}-\d{2}-\d{2}"
            inputMode="numeric"
            autoComplete="off"
            aria-label={t("dateOf", { label })}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errId : undefined}
            className={`${input} font-mono ${ring}`}
          />
        </label>
        <label className="w-24 shrink-0">
          <span className="sr-only">{t("timeOf", { label })}</span>
          <input
            name={`${name}Time`}
            defaultValue={time}
            required
            placeholder={t("timePlaceholder")}
            pattern="([01]\d|2[0-3]):[0-5]\d"
            inputMode="numeric"
            autoComplete="off"
            aria-label={t("timeOf", { label })}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errId : undefined}
            className={`${input} font-mono ${ring}`}
          />
        </label>
      </div>
      <span className="mt-1 block text-xs text-white/50">{timeZone ? t("dateTimeHintZone", { zone: timeZone }) : t("dateTimeHint")}</span>
      <FieldError id={errId} message={error} />
    </fieldset>
  );
}

type LevelRow = { key: number; values: PriceLevelFormValues };

/** Tiers and sections of a venue, for the seat-rule hint. */
function SeatRuleHint({ sections }: { sections: VenueSection[] }) {
  const t = useTranslations("EventForm");
  if (sections.length === 0) return null;
  const tiers = new Map<string, VenueSection[]>();
  for (const s of sections) tiers.set(s.tier, [...(tiers.get(s.tier) ?? []), s]);
  return (
    <div className="rounded-lg border border-white/10 bg-black/20 p-3 text-xs text-white/60" data-testid="venue-sections">
      <p className="mb-1 font-semibold text-white/80">{t("venueSectionsTitle")}</p>
      <ul className="space-y-0.5 break-words">
        {[...tiers].map(([tier, secs]) => (
          <li key={tier}>
            {t.rich("tierLine", {
              tier,
              count: secs.length,
              codes: secs.map((s) => s.code).join(", "),
              rows: Math.max(...secs.map((s) => s.rows)),
              code: (chunks) => <span className="font-mono text-white/80">{chunks}</span>,
            })}
          </li>
        ))}
      </ul>
      <p className="mt-1">{t("seatRuleExplained")}</p>
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
  const t = useTranslations("EventForm");
  const words = useProblemWords();
  const fmt = intlLocale(useLocale());

  function addLevel() {
    const currency = levels[0]?.values.currency || "EUR";
    const key = nextKey.current++;
    setLevels((ls) => [...ls, { key, values: { name: "", price: "", currency, color: PALETTE[ls.length % PALETTE.length]!, tiers: "", sections: "", rows: "" } }]);
  }

  return (
    <form action={formAction} className="space-y-6" noValidate data-testid="event-form">
      {(errorCount > 0 || state.message) && (
        <div role="alert" className="rounded-lg border border-red-400/60 bg-red-500/10 p-3 text-sm text-red-200" data-testid="form-error">
          {state.message ? words(state.message) : t("fixFields")}
        </div>
      )}

      <fieldset className="space-y-4 rounded-xl border border-white/10 bg-white/5 p-5">
        <legend className="px-1 font-semibold">{t("theShow")}</legend>
        {mode === "create" ? (
          <label className="block text-sm">
            {t("venue")}
            <select
              name="venueId"
              defaultValue={values.venueId}
              onChange={(e) => setVenueId(e.target.value)}
              aria-invalid={errors.venueId ? true : undefined}
              aria-describedby={errors.venueId ? "err-venueId" : undefined}
              className={`${input} ${errors.venueId ? "ring-2 ring-red-400/70" : ""}`}
            >
              <option value="">{t("chooseVenue")}</option>
              {venues.map((v) => (
                <option key={v.id} value={v.id}>
                  {t("venueOption", { name: v.name, city: v.city, capacity: v.capacity.toLocaleString(fmt) })}
                </option>
              ))}
            </select>
            <FieldError id="err-venueId" message={errors.venueId} />
          </label>
        ) : (
          <p className="break-words text-sm text-white/70">
            {t.rich("venueAndAddress", {
              venue: venue ? `${venue.name}, ${venue.city}` : "—",
              address: `/events/${values.slug}`,
              strong: (chunks) => <span className="text-white">{chunks}</span>,
              code: (chunks) => <span className="font-mono text-white">{chunks}</span>,
            })}
          </p>
        )}
        <div className="grid gap-4 md:grid-cols-2">
          <Field
            name="name"
            label={t("name")}
            required
            defaultValue={values.name}
            error={errors.name}
            onChange={(e) => {
              if (mode === "create" && !slugTouched) setSlug(slugify(e.target.value));
            }}
          />
          {mode === "create" && (
            <label className="block text-sm">
              {t("slug")}
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
              <span className="mt-1 block break-all text-xs text-white/50">{t("slugHint", { address: `/events/${slug || "…"}` })}</span>
              <FieldError id="err-slug" message={errors.slug} />
            </label>
          )}
        </div>
        <label className="block text-sm">
          {t("description")}
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
          <LocalDateTimeField name="startsAt" label={t("startsAt")} defaultValue={values.startsAt} error={errors.startsAt} timeZone={venue?.timeZone} />
          <LocalDateTimeField name="onSaleAt" label={t("onSaleAt")} defaultValue={values.onSaleAt} error={errors.onSaleAt} timeZone={venue?.timeZone} />
        </div>
        <p className="text-sm text-white/60" data-testid="time-zone">
          {venue
            ? t.rich("timesLocal", { zone: venue.timeZone, code: (chunks) => <span className="font-mono text-white/80">{chunks}</span> })
            : t("timesLocalNoVenue")}
        </p>
      </fieldset>

      <fieldset className="grid gap-4 rounded-xl border border-white/10 bg-white/5 p-5 md:grid-cols-4">
        <legend className="px-1 font-semibold">{t("saleLimits")}</legend>
        <Field name="holdMinutes" label={t("holdMinutes")} inputMode="numeric" defaultValue={values.holdMinutes} error={errors.holdMinutes} hint={t("holdMinutesHint")} />
        <Field name="perFanLimit" label={t("perFanLimit")} inputMode="numeric" defaultValue={values.perFanLimit} error={errors.perFanLimit} hint={t("perFanLimitHint")} />
        <Field
          name="admissionRatePerMinute"
          label={t("admissionRate")}
          inputMode="numeric"
          defaultValue={values.admissionRatePerMinute}
          error={errors.admissionRatePerMinute}
          hint={t("admissionRateHint")}
        />
        <Field name="activeCap" label={t("activeCap")} inputMode="numeric" defaultValue={values.activeCap} error={errors.activeCap} hint={t("activeCapHint")} />
      </fieldset>

      <fieldset className="space-y-4 rounded-xl border border-white/10 bg-white/5 p-5" data-testid="price-level-editor">
        <legend className="px-1 font-semibold">{t("priceLevels")}</legend>
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
                    <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
                      <h3 className="font-semibold">{t("levelHeading", { n: i + 1 })}</h3>
                      {levels.length > 1 && (
                        <button type="button" onClick={() => setLevels((ls) => ls.filter((l) => l.key !== row.key))} className="text-sm text-white/60 underline hover:text-white">
                          {t("removeLevel", { n: i + 1 })}
                        </button>
                      )}
                    </div>
                    <div className="grid gap-3 md:grid-cols-4">
                      <Field name={n("name")} label={t("levelName", { n: i + 1 })} defaultValue={row.values.name} error={e("name")} />
                      <Field name={n("price")} label={t("levelPrice", { n: i + 1 })} inputMode="decimal" defaultValue={row.values.price} error={e("price")} hint={t("priceHint")} />
                      <Field name={n("currency")} label={t("levelCurrency", { n: i + 1 })} defaultValue={row.values.currency} error={e("currency")} hint={t("currencyHint")} />
                      <label className="block text-sm">
                        {t("levelColour", { n: i + 1 })}
                        <input type="color" name={n("color")} defaultValue={row.values.color} className="mt-1 block h-10 w-full cursor-pointer rounded bg-black/40 p-1" />
                        <FieldError id={`err-${n("color")}`} message={e("color")} />
                      </label>
                      <Field name={n("tiers")} label={t("levelTiers", { n: i + 1 })} defaultValue={row.values.tiers} error={e("tiers")} hint={t("tiersHint")} />
                      <Field name={n("sections")} label={t("levelSections", { n: i + 1 })} defaultValue={row.values.sections} error={e("sections")} hint={t("sectionsHint")} />
                      <Field name={n("rows")} label={t("levelRows", { n: i + 1 })} defaultValue={row.values.rows} error={e("rows")} hint={t("rowsHint")} />
                    </div>
                  </li>
                );
              })}
            </ol>
            {levels.length < MAX_LEVELS && (
              <button type="button" onClick={addLevel} className="rounded border border-white/20 px-3 py-1.5 text-sm hover:border-white/50">
                {t("addLevel")}
              </button>
            )}
          </>
        )}
      </fieldset>

      <button type="submit" disabled={pending} className="button-primary px-5 py-2">
        {pending ? t("saving") : submitLabel}
      </button>
    </form>
  );
}

/** "Publish" with a confirmation: a draft becomes visible on the home page. */
export function PublishButton({ action, name, onSaleText }: { action: () => Promise<PublishState>; name: string; onSaleText: string }) {
  const t = useTranslations("EventForm");
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form
      action={formAction}
      onSubmit={(e) => {
        if (!window.confirm(t("publishConfirm", { name, onSale: onSaleText }))) e.preventDefault();
      }}
      className="flex flex-wrap items-center gap-3"
    >
      <button type="submit" disabled={pending} className="rounded bg-emerald-500 px-5 py-2 font-semibold text-black hover:bg-emerald-400 disabled:opacity-50">
        {pending ? t("publishing") : t("publish")}
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
