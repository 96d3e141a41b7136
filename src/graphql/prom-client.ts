// prom-client, for the metrics GET /metrics serves, and the only module that imports it.
//
// prom-client's CommonJS files and their dependencies (@opentelemetry/api among them) cost every process that loads the
// server about 0.04 s of CPU to resolve and load one by one on node 20. `npm run build` bundles this module with them
// into one minified file (scripts/build-package-bundles.mjs). `npm test` runs that bundle too when dist/ is built from
// the checkout (scripts/build-tests.mjs); a test file run alone through tsx runs these sources.
export { Counter, Gauge, Histogram, Registry } from "prom-client";
