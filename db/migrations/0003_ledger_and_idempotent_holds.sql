CREATE TABLE "psp_ledger_cursors" (
	"provider" text PRIMARY KEY NOT NULL,
	"reconciled_through" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "ledger_confirmed_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "orders_fan_idempotency_uq" ON "orders" USING btree ("fan_id","idempotency_key");--> statement-breakpoint
-- Before the one-pending-order-per-fan index: a database from before this rule may hold a
-- fan's second pending order for the same show. Keep the newest; the older ones end as
-- `cancelled` (logged like any transition), their seats go back on sale, and the next
-- reconciliation rebuilds Redis from Postgres.
WITH extra AS (
	SELECT id FROM (
		SELECT id, row_number() OVER (PARTITION BY event_id, fan_id ORDER BY created_at DESC, id DESC) AS n
		FROM "orders" WHERE status = 'pending_payment'
	) ranked WHERE n > 1
), ended AS (
	UPDATE "orders" SET status = 'cancelled', updated_at = now() WHERE id IN (SELECT id FROM extra) RETURNING id
), logged AS (
	INSERT INTO "order_transitions" (order_id, entity, entity_id, from_status, to_status, actor, reason)
	SELECT id, 'order', id, 'pending_payment', 'cancelled', 'system:migration', 'a fan may have one pending order per show (docs/adr/0011): older duplicate ended' FROM ended
), items AS (
	UPDATE "line_items" SET status = 'released' WHERE order_id IN (SELECT id FROM ended) AND status = 'held' RETURNING event_id, seat_id
)
UPDATE "event_seats" es SET status = 'available' FROM items WHERE es.event_id = items.event_id AND es.seat_id = items.seat_id AND es.status = 'held';--> statement-breakpoint
CREATE UNIQUE INDEX "orders_one_pending_per_fan_uq" ON "orders" USING btree ("event_id","fan_id") WHERE "orders"."status" = 'pending_payment';--> statement-breakpoint
CREATE INDEX "payments_unconfirmed_idx" ON "payments" USING btree ("updated_at") WHERE "payments"."status" = 'captured' and "payments"."ledger_confirmed_at" is null;--> statement-breakpoint
CREATE INDEX "checkouts_captured_idx" ON "sandbox_psp"."checkouts" USING btree ("captured_at","id") WHERE "sandbox_psp"."checkouts"."captured_at" is not null;--> statement-breakpoint
CREATE INDEX "checkouts_refunded_idx" ON "sandbox_psp"."checkouts" USING btree ("refunded_at","id") WHERE "sandbox_psp"."checkouts"."refunded_at" is not null;