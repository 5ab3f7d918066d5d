"use client";
/**
 * The organizer's door staff, on the check-in page: the accounts that may check tickets in for
 * the organizer's shows (and do nothing else), a form to add one, and a Remove button each.
 */
import { useTranslations } from "next-intl";
import { useActionState, useEffect, useRef, useState, useTransition } from "react";
import { createDoorStaffAction, removeDoorStaffAction } from "./actions";

/** A door-staff account as listed. */
export interface DoorStaffRow {
  id: string;
  name: string;
  email: string;
}

const FIELD = "w-full rounded bg-black/40 px-3 py-2";

/**
 * Door-staff list and form.
 * @param props.staff the organizer's door-staff accounts.
 * @param props.signInUrl where door staff sign in (it leads to this page).
 */
export function DoorStaff({ staff, signInUrl }: { staff: DoorStaffRow[]; signInUrl: string }) {
  const t = useTranslations("Scan");
  const [state, action, pending] = useActionState(createDoorStaffAction, null);
  const [removing, startRemoving] = useTransition();
  const [removeError, setRemoveError] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state?.ok) form.current?.reset();
  }, [state]);

  return (
    <section className="space-y-4 rounded-xl border border-white/15 p-4" aria-labelledby="door-staff-heading" data-testid="door-staff">
      <h2 id="door-staff-heading" className="text-xl font-semibold">
        {t("staffHeading")}
      </h2>
      <p className="text-sm text-white/70">
        {t.rich("staffIntro", { address: signInUrl, link: (chunks) => <span className="font-mono break-all">{chunks}</span> })}
      </p>
      {staff.length > 0 ? (
        <ul className="space-y-2 text-sm">
          {staff.map((s) => (
            <li key={s.id} className="flex flex-wrap items-center justify-between gap-2" data-testid="door-staff-member">
              <span className="min-w-0 break-all">
                {s.name} · {s.email}
              </span>
              <button
                type="button"
                disabled={removing}
                className="rounded bg-white/10 px-3 py-1 hover:bg-white/20 disabled:opacity-50"
                onClick={() =>
                  startRemoving(async () => {
                    const r = await removeDoorStaffAction(s.id);
                    setRemoveError("ok" in r && r.ok ? null : (r as { error: string }).error);
                  })
                }
              >
                {t("staffRemove", { name: s.name })}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-white/60">{t("staffNone")}</p>
      )}
      {removeError && <p className="text-sm text-red-300">{removeError}</p>}
      <form ref={form} action={action} className="grid gap-3 sm:grid-cols-3">
        <label className="block text-sm">
          {t("staffName")}
          <input name="name" required maxLength={100} autoComplete="off" className={FIELD} />
        </label>
        <label className="block text-sm">
          {t("staffEmail")}
          <input name="email" type="email" required maxLength={254} autoComplete="off" className={FIELD} />
        </label>
        <label className="block text-sm">
          {t("staffPassword")}
          <input name="password" type="password" required minLength={8} maxLength={128} autoComplete="new-password" className={FIELD} />
        </label>
        <div className="sm:col-span-3">
          <button disabled={pending} className="button-primary px-5 py-2">
            {pending ? t("staffAdding") : t("staffAdd")}
          </button>
        </div>
      </form>
      {state && (
        <p role="status" data-testid="door-staff-outcome" className={`text-sm ${state.ok ? "text-emerald-300" : "text-red-300"}`}>
          {state.ok ? t("staffAdded", { email: state.email }) : state.error}
        </p>
      )}
    </section>
  );
}
