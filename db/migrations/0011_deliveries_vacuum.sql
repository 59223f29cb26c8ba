-- Every attempt updates its delivery, leaving a dead entry in the partial claims index that the sweeper
-- reads from its start every 5 s; only a vacuum removes them. At Postgres's default (a vacuum once 20 %
-- of the table is dead) that is hours of deliveries between vacuums on a table holding weeks of them:
-- a 15-minute soak on 12 hours of history saw the sweep's reads climb 36 -> 105 pages and its index
-- 160 -> 800 KB; vacuumed at 3 % it stayed between 12 and 39 pages (README, Soak).
ALTER TABLE "webhook_deliveries" SET (autovacuum_vacuum_scale_factor = 0.03, autovacuum_vacuum_threshold = 1000);
