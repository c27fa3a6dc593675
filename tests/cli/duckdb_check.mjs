// duckdb_check.mjs: gpuanalyze's CSV and JSON Lines outputs loaded by DuckDB as a user loads them
// (read_csv and read_json with type detection), for tests/cli/test_tidy_duckdb.sh.
//
//   node duckdb_check.mjs DIR
//
// DIR holds, per trace T (a name): T.summary.csv, T.summary.json, T.split.csv, T.split-dist.csv,
// T.bandwidth.csv, T.kern_sum.csv, T.dump.jsonl, T.info.json. Checks, printing one line per trace:
//   - types: every column whose name ends in a unit (_ns, _pct, _gbps, _bytes, _ppm) is numeric, and
//     the real ones (summary's median_ns, split's wall_ns, the distribution's median_ns) are DOUBLE
//     in every file, whatever the values of that file;
//   - answers: sum(total_ns) over summary's kernel rows is summary's kernel_total_ns (its JSON);
//     DuckDB's median(wall_ns) over split's units is the --distribution's median_ns for wall_ns;
//     the kernels in the JSON Lines dump are info's kernel records; stats cuda_gpu_kern_sum's
//     instances add up to summary's launches.
// A file with a header and no rows reads as all VARCHAR; the casts in the queries are for those
// (the type checks above are what would catch a column of values read as text).
// Exit 1 on any disagreement, with both answers.
import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
let failed = 0;

async function rows(sql) {
  const r = await con.runAndReadAll(sql);
  return r.getRowObjects();
}
function fail(what) {
  console.log(`FAIL ${what}`);
  failed = 1;
}
function near(a, b) {
  return Math.abs(Number(a) - Number(b)) <= 1e-9 * Math.max(1, Math.abs(Number(b)));
}
const q = (p) => `'${p.replaceAll("'", "''")}'`;

async function types(file, reader) {
  const t = {};
  for (const r of await rows(`DESCRIBE SELECT * FROM ${reader}(${q(file)})`))
    t[r.column_name] = r.column_type;
  return t;
}
const unit = /_(ns|pct|gbps|bytes|ppm)$/;
const numeric = /^(BIGINT|INTEGER|SMALLINT|TINYINT|UBIGINT|HUGEINT|DOUBLE|FLOAT|DECIMAL.*)$/;

const traces = readdirSync(dir).filter((f) => f.endsWith('.summary.csv')).map((f) => f.slice(0, -12));
for (const t of traces) {
  const f = (s) => join(dir, `${t}.${s}`);
  for (const [name, reader] of [['summary.csv', 'read_csv'], ['split.csv', 'read_csv'],
    ['split-dist.csv', 'read_csv'], ['bandwidth.csv', 'read_csv'], ['kern_sum.csv', 'read_csv']]) {
    const ty = await types(f(name), reader);
    for (const [c, k] of Object.entries(ty))
      if (unit.test(c) && !numeric.test(k) && k !== 'VARCHAR') fail(`${t}.${name}: ${c} is ${k}`);
      else if (unit.test(c) && k === 'VARCHAR') {
        // an all-empty column (n/a everywhere) is VARCHAR to DuckDB: only then is it allowed
        const n = await rows(`SELECT count(${JSON.stringify(c)}) AS n FROM read_csv(${q(f(name))})`);
        if (Number(n[0].n) > 0) fail(`${t}.${name}: ${c} holds values yet reads as VARCHAR`);
      }
    const reals = { 'summary.csv': ['median_ns', 'mean_ns'], 'split.csv': ['wall_ns', 'kernel_ns'],
      'split-dist.csv': ['median_ns', 'min_ns', 'max_ns'] }[name] || [];
    for (const c of reals)
      if (ty[c] && ty[c] !== 'DOUBLE') fail(`${t}.${name}: real column ${c} reads as ${ty[c]}`);
  }
  const sum = JSON.parse(readFileSync(f('summary.json'), 'utf8'));
  const info = JSON.parse(readFileSync(f('info.json'), 'utf8')).traces[0];
  const a = await rows(`SELECT sum(TRY_CAST(total_ns AS DOUBLE)) AS s, sum(TRY_CAST(launches AS BIGINT)) AS l FROM read_csv(${q(f('summary.csv'))}) WHERE kind = 'kernel'`);
  if (!near(a[0].s ?? 0, sum.kernel_total_ns ?? 0)) fail(`${t}: sum(total_ns) ${a[0].s} vs kernel_total_ns ${sum.kernel_total_ns}`);
  const m = await rows(`SELECT median(TRY_CAST(wall_ns AS DOUBLE)) AS m, count(*) AS n FROM read_csv(${q(f('split.csv'))})`);
  const d = await rows(`SELECT TRY_CAST(median_ns AS DOUBLE) AS m, n FROM read_csv(${q(f('split-dist.csv'))}) WHERE metric = 'wall_ns'`);
  if (Number(m[0].n) !== Number(d[0].n) || (Number(d[0].n) > 0 && !near(m[0].m, d[0].m)))
    fail(`${t}: median(wall_ns) ${m[0].m} of ${m[0].n} units vs --distribution ${d[0].m} of ${d[0].n}`);
  const k = await rows(`SELECT count(*) AS n FROM read_json(${q(f('dump.jsonl'))}, format = 'newline_delimited') WHERE type = 'kernel'`);
  const want = info.records_by_type.kernel ?? 0;
  if (Number(k[0].n) !== want) fail(`${t}: ${k[0].n} kernels in the JSON Lines dump vs info's ${want}`);
  const s = await rows(`SELECT sum(TRY_CAST(instances AS BIGINT)) AS n FROM read_csv(${q(f('kern_sum.csv'))})`);
  if (Number(s[0].n ?? 0) !== Number(a[0].l ?? 0)) fail(`${t}: stats instances ${s[0].n} vs summary launches ${a[0].l}`);
  console.log(`${failed ? 'FAIL' : 'ok'} ${t}: ${Object.keys(await types(f('summary.csv'), 'read_csv')).length} summary columns typed; ` +
    `kernel total ${sum.kernel_total_ns} ns; median wall ${d[0].m} ns over ${d[0].n} units; ${k[0].n} kernels`);
}
if (!traces.length) fail(`no outputs in ${dir}`);
process.exit(failed);
