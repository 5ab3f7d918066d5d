/**
 * The page around every screen: `<html lang>`, the header (home link, language switcher, the
 * account menu) and the main column, with next-intl's client provider so client components
 * translate too. Rendered by app/[locale]/layout.tsx (fan pages, one static render per
 * locale), app/admin/layout.tsx and app/dev/layout.tsx. It reads no cookies itself.
 */
import Link from "next/link";
import { IntlClientProvider } from "@/components/intl-client-provider";
import type { ReactNode } from "react";
import { LocaleSwitcher } from "@/components/locale-switcher";
import { UserMenu } from "@/components/user-menu";
import { Providers } from "@/app/providers";
import type { Locale } from "@/lib/i18n/config";
import { messagesFor } from "@/lib/i18n/translate";

/**
 * @param locale the page's language: its catalogue is handed to the client components. The
 *   shell reads nothing from the request, so it can wrap the root's not-found and forbidden
 *   boundaries, which Next renders into every page's payload.
 */
export function SiteShell({ locale, children }: { locale: Locale; children: ReactNode }) {
  return (
    <html lang={locale}>
      <body className="min-h-screen antialiased">
        <IntlClientProvider locale={locale} messages={messagesFor(locale)} timeZone="UTC">
          <Providers>
            <header className="border-b border-white/10 bg-black/30">
              {/* Wraps rather than overflows: on a 360-px phone an organizer's links take a second line. */}
              <nav className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-x-2 gap-y-2 px-4 py-3">
                <Link href="/" className="shrink-0 text-lg font-bold tracking-tight">
                  ★ StarArena
                </Link>
                <div className="ml-auto flex min-w-0 flex-wrap items-center justify-end gap-2 sm:gap-4">
                  <LocaleSwitcher />
                  <UserMenu />
                </div>
              </nav>
            </header>
            <main className="mx-auto max-w-6xl px-4 py-8">{children}</main>
          </Providers>
        </IntlClientProvider>
      </body>
    </html>
  );
}

