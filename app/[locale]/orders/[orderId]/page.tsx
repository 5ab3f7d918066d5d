import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { OrderView } from "@/components/order-view";
import { requireUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { orderIdSchema } from "@/lib/ids";
import type { Locale } from "@/lib/i18n/config";
import { fanOrderView } from "@/lib/payments/sync";

export async function generateMetadata({ params }: PageProps<"/[locale]/orders/[orderId]">): Promise<Metadata> {
  const t = await getTranslations({ locale: (await params).locale as Locale, namespace: "Order" });
  return { title: t("title") };
}

/**
 * The fan's order. Coming back from the PSP (`?checkout=…`), it first asks the PSP
 * (racing the webhook; both paths are idempotent; a late payment is re-claimed or
 * refunded right here), then follows the status live.
 */
export default async function OrderPage({ params, searchParams }: PageProps<"/[locale]/orders/[orderId]">) {
  const { orderId } = await params;
  const user = await requireUser(`/orders/${orderId}`);
  if (!orderIdSchema.safeParse(orderId).success) notFound();
  // Back from the PSP (`?checkout=`): the PSP is asked first (a payment after expiry is resolved here too).
  const order = await fanOrderView(db(), orderId, user.id, Boolean((await searchParams).checkout));
  if (!order) notFound();
  return <OrderView initial={order} />;
}
