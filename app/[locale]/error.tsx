"use client";
/**
 * What a person sees when a page cannot be rendered — almost always because a dependency is
 * down for a moment (the server then answers 503: scripts/serve.ts). It says so plainly,
 * promises nothing is lost, and retries by itself with back-off (components/trouble.ts), so a
 * fan waiting on the page is back as soon as the service is.
 */
import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { troubleDelayMs } from "@/components/trouble";

export default function ErrorPage({ retry }: { error: Error & { digest?: string }; retry: () => void }) {
  const t = useTranslations("ErrorPage");
  const [attempt, setAttempt] = useState(0);
  const [left, setLeft] = useState(0);
  useEffect(() => {
    const delay = troubleDelayMs(attempt);
    let remaining = Math.round(delay / 1000);
    const first = setTimeout(() => setLeft(remaining), 0);
    const tick = setInterval(() => setLeft(--remaining > 0 ? remaining : 0), 1_000);
    const timer = setTimeout(() => {
      setAttempt((a) => a + 1);
      retry();
    }, delay);
    return () => {
      clearTimeout(first);
      clearInterval(tick);
      clearTimeout(timer);
    };
  }, [attempt, retry]);
  return (
    <div role="alert" className="mx-auto max-w-xl space-y-4 rounded-xl border border-amber-300/30 bg-amber-300/5 p-6" data-testid="trouble">
      <h1 className="text-2xl font-bold">{t("title")}</h1>
      <p className="text-white/80">{t("body")}</p>
      <p className="text-white/60" aria-live="polite">{t("retrying", { seconds: left })}</p>
      <button onClick={() => retry()} className="button-primary px-5 py-2">
        {t("retryNow")}
      </button>
    </div>
  );
}
