"use client";
/**
 * next-intl's provider, from the client side: the shell hands it the locale and catalogue it
 * already has. Imported from a client file, `NextIntlClientProvider` is the plain client
 * provider; the server one would read next-intl's request configuration (and with it, on a
 * page that has not set its locale, the request's headers — making the page dynamic).
 */
import { NextIntlClientProvider } from "next-intl";
import type { ComponentProps } from "react";

/** Props: `locale`, `messages`, `timeZone`, children — as NextIntlClientProvider's. */
export function IntlClientProvider(props: ComponentProps<typeof NextIntlClientProvider>) {
  return <NextIntlClientProvider {...props} />;
}
