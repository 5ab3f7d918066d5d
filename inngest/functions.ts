/** Every Inngest function the app serves at /api/inngest. */
import { ledgerReconciliation } from "./ledger-reconciliation";
import { orderLifecycle } from "./order-lifecycle";
import { reconciliation } from "./reconciliation";
import { ticketIssuance } from "./ticket-issuance";

export const functions = [orderLifecycle, ticketIssuance, reconciliation, ledgerReconciliation];
