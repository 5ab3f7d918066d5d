CREATE TABLE "refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"amount_minor" integer NOT NULL,
	"currency" text NOT NULL,
	"line_item_ids" jsonb NOT NULL,
	"reason" text NOT NULL,
	"actor" text NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"provider_refund_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "refunds_idempotency_key_unique" UNIQUE("idempotency_key"),
	CONSTRAINT "refunds_amount_ck" CHECK ("refunds"."amount_minor" > 0),
	CONSTRAINT "refunds_status_ck" CHECK ("refunds"."status" in ('requested', 'succeeded'))
);
--> statement-breakpoint
CREATE TABLE "sandbox_psp"."refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"checkout_id" text NOT NULL,
	"amount_minor" integer NOT NULL,
	"idempotency_key" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "refunds_amount_ck" CHECK ("sandbox_psp"."refunds"."amount_minor" > 0)
);
--> statement-breakpoint
ALTER TABLE "sandbox_psp"."checkouts" ADD COLUMN "refunded_minor" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sandbox_psp"."checkouts" ADD COLUMN "last_refund_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_psp"."refunds" ADD CONSTRAINT "refunds_checkout_id_checkouts_id_fk" FOREIGN KEY ("checkout_id") REFERENCES "sandbox_psp"."checkouts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "refunds_order_idx" ON "refunds" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "refunds_payment_idx" ON "refunds" USING btree ("payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_checkout_key_uq" ON "sandbox_psp"."refunds" USING btree ("checkout_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "checkouts_last_refund_idx" ON "sandbox_psp"."checkouts" USING btree ("last_refund_at","id") WHERE "sandbox_psp"."checkouts"."last_refund_at" is not null;