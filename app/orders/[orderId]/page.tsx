import { notFound } from "next/navigation";
import { z } from "zod";
import { OrderView } from "@/components/order-view";
import { requireUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { getFanOrder } from "@/lib/orders/queries";
import { syncOnReturn } from "@/lib/payments/sync";

export const metadata = { title: "Your order" };

/**
 * The fan's order. Coming back from the PSP (`?checkout=…`), it first asks the PSP
 * (racing the webhook; both paths are idempotent; a late payment is re-claimed or
 * refunded right here), then follows the status live.
 */
export default async function OrderPage({ params, searchParams }: PageProps<"/orders/[orderId]">) {
  const { orderId } = await params;
  const user = await requireUser(`/orders/${orderId}`);
  if (!z.string().regex(/^ord_[0-9a-z]{1,32}$/).safeParse(orderId).success) notFound();
  const first = await getFanOrder(db(), orderId, user.id);
  if (!first) notFound();
  // Back from the PSP: ask it now, whatever the order's state (a payment after expiry is resolved here too).
  const order = (await searchParams).checkout && (await syncOnReturn(db(), first, user.id)) ? (await getFanOrder(db(), orderId, user.id))! : first;
  return <OrderView initial={order} />;
}
