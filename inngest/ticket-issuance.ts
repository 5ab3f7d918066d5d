/** Ticket issuance for a paid order, retried with Inngest's backoff until the tickets exist. */
import { NonRetriableError } from "inngest";
import { db } from "@/lib/db";
import { issueTickets } from "@/lib/tickets/issue";
import { inngest } from "./client";

export const ticketIssuance = inngest.createFunction(
  {
    id: "ticket-issuance",
    triggers: [{ event: "order/paid" }],
    concurrency: { key: "event.data.orderId", limit: 1 },
    retries: 20,
  },
  async ({ event, step }) => {
    const { orderId } = event.data as { orderId: string };
    const issued = await step.run("issue-tickets", () => issueTickets(db(), orderId, { actor: "job:ticket-issuance", reason: "order paid" }));
    if (issued === 0) throw new NonRetriableError(`order ${orderId} is not paid or has no seats`);
    return { orderId, tickets: issued };
  },
);
