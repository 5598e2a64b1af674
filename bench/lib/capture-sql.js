// Loaded with `node --require` into a service process the benchmark starts for this alone
// (bench/lib/uncached.ts): appends every statement the process sends to Postgres to the file
// $BENCH_SQL_CAPTURE, one JSON line each: its text, its parameters as pg sends them (text), its
// statement name. Whatever builds the SQL (knex or pg itself), it goes through pg's Client#query.
const { Buffer } = require('node:buffer');
const fs = require('node:fs');
const { Client } = require('pg');

/** An array as pg sends it: a Postgres array literal, every element quoted (as pg's own arrayString). */
const arrayText = (a) => `{${a.map((v) => (v === null || v === undefined ? 'NULL' : Array.isArray(v) ? arrayText(v)
  : `"${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)).join(',')}}`;

/** A value as text, as pg sends the service's values (numbers, strings, arrays of them, null; a Buffer as hex). */
const asText = (v) => (v === null || v === undefined ? null : Buffer.isBuffer(v) ? { hex: v.toString('hex') }
  : Array.isArray(v) ? arrayText(v) : v instanceof Date ? v.toISOString() : String(v));

const file = process.env.BENCH_SQL_CAPTURE;
if (!file) throw new Error('capture-sql.js: BENCH_SQL_CAPTURE is not set');

const query = Client.prototype.query;
Client.prototype.query = function capturedQuery(config, values) {
  const text = typeof config === 'string' ? config : config && config.text;
  if (typeof text === 'string') {
    const params = typeof config === 'string' ? values : config.values;
    const line = {
      text,
      values: (Array.isArray(params) ? params : []).map(asText),
      name: (typeof config === 'object' && config.name) || null,
    };
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  }
  return query.apply(this, arguments);
};
