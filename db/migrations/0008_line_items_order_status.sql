DROP INDEX "line_items_order_idx";--> statement-breakpoint
CREATE INDEX "line_items_order_status_idx" ON "line_items" USING btree ("order_id","status");