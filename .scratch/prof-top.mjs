import fs from "node:fs";
const file = process.argv[2];
const prof = JSON.parse(fs.readFileSync(file, "utf8"));
const byId = new Map(prof.nodes.map(n => [n.id, n]));
const self = new Map();
const dt = prof.timeDeltas; let total = 0;
const counts = new Map();
prof.samples.forEach((id, i) => { counts.set(id, (counts.get(id) || 0) + (dt[i] || 0)); total += dt[i] || 0; });
for (const [id, t] of counts) { const n = byId.get(id); const cf = n.callFrame; const key = `${cf.functionName || "(anon)"} ${cf.url.replace(/.*node_modules\//, "nm/").replace(/.*\/work\/main\//, "")}:${cf.lineNumber}`; self.set(key, (self.get(key) || 0) + t); }
const by = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] || 40));
for (const [k, t] of by) console.log((t / total * 100).toFixed(1).padStart(5) + "% " + k);
// by file
const files = new Map();
for (const [id, t] of counts) { const n = byId.get(id); const u = n.callFrame.url.replace(/.*node_modules\//, "nm/").replace(/.*\/work\/main\//, ""); const key = u.startsWith("nm/") ? u.split("/").slice(0, u.split("/")[1].startsWith("@") ? 3 : 2).join("/") : u; files.set(key, (files.get(key) || 0) + t); }
console.log("--- by file/package");
for (const [k, t] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((t / total * 100).toFixed(1).padStart(5) + "% " + k);
