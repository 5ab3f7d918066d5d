"use client";
/**
 * The last resort, when even the page's layout cannot render: a plain page (it replaces the
 * layout, so no styles or providers of ours) that says what happened and offers to try again,
 * in the fan's language (the language cookie, else the browser's languages).
 */
import { localeOfRequest, type Locale } from "@/lib/i18n/config";
import { translator } from "@/lib/i18n/translate";

/** The browser's locale as the proxy would choose it; English while rendering on the server. */
function browserLocale(): Locale {
  if (typeof document === "undefined") return "en";
  const header = (name: string) => (name === "cookie" ? document.cookie : name === "accept-language" ? navigator.languages.join(",") : null);
  return localeOfRequest({ get: header });
}

export default function GlobalError({ retry }: { error: Error & { digest?: string }; retry: () => void }) {
  const locale = browserLocale();
  const t = translator(locale, "ErrorPage");
  return (
    <html lang={locale}>
      <body style={{ fontFamily: "system-ui, sans-serif", background: "#0b0b14", color: "#fff", padding: "2rem", maxWidth: "40rem", margin: "auto" }}>
        <h1>{t("title")}</h1>
        <p>{t("body")}</p>
        <button onClick={() => retry()} style={{ padding: "0.5rem 1.25rem", fontWeight: 600 }}>
          {t("retryNow")}
        </button>
      </body>
    </html>
  );
}
