import fs from "node:fs";
const prof = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const pattern = new RegExp(process.argv[3] || ".");
const byId = new Map(prof.nodes.map(n => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children || []) parent.set(c, n.id);
const selfT = new Map(); let total = 0;
prof.samples.forEach((id, i) => { const d = prof.timeDeltas[i] || 0; selfT.set(id, (selfT.get(id) || 0) + d); total += d; });
const incl = new Map();
for (const [id, t] of selfT) {
  const seen = new Set(); let cur = id;
  while (cur !== undefined) { const n = byId.get(cur); const cf = n.callFrame; const key = `${cf.functionName || "(anon)"} ${cf.url.replace(/.*node_modules\//, "nm/").replace(/.*\/work\/main\//, "")}:${cf.lineNumber}`; if (!seen.has(key)) { seen.add(key); incl.set(key, (incl.get(key) || 0) + t); } cur = parent.get(cur); }
}
for (const [k, t] of [...incl].filter(([k]) => pattern.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log((t / total * 100).toFixed(1).padStart(5) + "% " + k);
