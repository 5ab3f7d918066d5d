"use server";
/** Server actions of the order page: go to the PSP to pay, or give the seats back. */
import { redirect } from "next/navigation";
import { getSessionUser } from "@/lib/auth/session";
import { db } from "@/lib/db";
import { orderIdSchema } from "@/lib/http";
import { paymentProvider } from "@/lib/payments";
import { CheckoutRefusedError, startCheckout } from "@/lib/payments/checkout";
import { PaymentProviderError } from "@/lib/payments/provider";
import { closePendingOrder } from "@/lib/orders/expiry";
import { getFanOrder } from "@/lib/orders/queries";


/** Starts the checkout and redirects to the PSP; returns `{ error }` when it cannot. */
export async function payAction(id: unknown): Promise<{ error: string }> {
  const user = await getSessionUser();
  if (!user) return { error: "Sign in to pay." };
  const parsed = orderIdSchema.safeParse(id);
  if (!parsed.success) return { error: "No such order." };
  let url: string;
  try {
    ({ url } = await startCheckout(db(), paymentProvider()!, { orderId: parsed.data, fanId: user.id }));
  } catch (error) {
    if (error instanceof CheckoutRefusedError) return { error: error.message };
    if (error instanceof PaymentProviderError) return { error: "The payment provider is not answering. Please try again in a moment." };
    throw error;
  }
  redirect(url);
}

/** Gives the held seats back (order → cancelled). */
export async function cancelAction(id: unknown): Promise<{ error?: string }> {
  const user = await getSessionUser();
  if (!user) return { error: "Sign in first." };
  const parsed = orderIdSchema.safeParse(id);
  if (!parsed.success || !(await getFanOrder(db(), parsed.data, user.id))) return { error: "No such order." };
  try {
    const done = await closePendingOrder(db(), parsed.data, "cancelled", { actor: `fan:${user.id}`, reason: "fan gave the seats back" });
    if (done === "paid") return { error: "Your payment has just gone through, so the seats are yours." };
    return done === "closed" ? {} : { error: "This order can no longer be cancelled." };
  } catch (error) {
    if (error instanceof PaymentProviderError) return { error: "We could not reach the payment provider to stop your payment. Please try again in a moment." };
    throw error;
  }
}
