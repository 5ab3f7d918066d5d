import { notFound } from "next/navigation";
import { OrderView } from "@/components/order-view";
import { requireUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { orderIdSchema } from "@/lib/ids";
import { fanOrderView } from "@/lib/payments/sync";

export const metadata = { title: "Your order" };

/**
 * The fan's order. Coming back from the PSP (`?checkout=…`), it first asks the PSP
 * (racing the webhook; both paths are idempotent; a late payment is re-claimed or
 * refunded right here), then follows the status live.
 */
export default async function OrderPage({ params, searchParams }: PageProps<"/orders/[orderId]">) {
  const { orderId } = await params;
  const user = await requireUser(`/orders/${orderId}`);
  if (!orderIdSchema.safeParse(orderId).success) notFound();
  // Back from the PSP (`?checkout=`): the PSP is asked first (a payment after expiry is resolved here too).
  const order = await fanOrderView(db(), orderId, user.id, Boolean((await searchParams).checkout));
  if (!order) notFound();
  return <OrderView initial={order} />;
}
