/** A self-contained interactive reference (no CDN: the service must work offline). It reads /openapi.json. */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hardhat-token-service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.6rem}.op{border:1px solid #d0d7de;border-radius:8px;margin:1rem 0;padding:.5rem 1rem}
.m{display:inline-block;min-width:3.5rem;font-weight:700;text-transform:uppercase}.get{color:#0969da}.post{color:#1a7f37}
code,textarea,input{font:13px ui-monospace,monospace}textarea{width:100%;min-height:8rem}input{width:100%}
pre{background:#f6f8fa;padding:.5rem;overflow:auto;max-height:24rem}label{display:block;margin-top:.3rem}
</style></head><body>
<h1>hardhat-token-service API</h1>
<p>Generated from <a href="openapi.json">/openapi.json</a>. Your API key: <input id="key" placeholder="apiKey (sent as x-api-key)"></p>
<div id="ops">Loading…</div>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&":"&amp;","<":"&lt;",">":"&gt;","\\"":"&quot;"}[c]));
function example(schema) {
  if (!schema || typeof schema !== "object") return null;
  if (schema.examples) return schema.examples[0];
  if (schema.anyOf) return example(schema.anyOf[0]);
  if (schema.type === "object") { const o = {}; for (const [k, v] of Object.entries(schema.properties || {})) if ((schema.required || []).includes(k)) o[k] = example(v); return o; }
  if (schema.type === "array") return [];
  if (schema.type === "number" || schema.type === "integer") return 0;
  if (schema.type === "boolean") return false;
  return "";
}
fetch("openapi.json").then((r) => r.json()).then((doc) => {
  const ops = document.getElementById("ops"); ops.innerHTML = "";
  for (const [path, methods] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(methods)) {
    const div = document.createElement("div"); div.className = "op";
    const params = (op.parameters || []).filter((p) => p.in !== "header");
    const body = op.requestBody && op.requestBody.content["application/json"].schema;
    div.innerHTML = "<h3><span class='m " + method + "'>" + method + "</span> <code>" + esc(path) + "</code></h3><p>" + esc(op.summary) + "</p>" +
      (op.description ? "<p>" + esc(op.description) + "</p>" : "") +
      params.map((p) => "<label>" + esc(p.name) + (p.required ? " *" : "") + " <small>" + esc(p.description || "") + "</small><input data-in='" + p.in + "' data-name='" + esc(p.name) + "'></label>").join("") +
      (body ? "<label>body<textarea>" + esc(JSON.stringify(example(body), null, 2)) + "</textarea></label>" : "") +
      "<button>Send</button><pre hidden></pre>";
    div.querySelector("button").onclick = async () => {
      let url = path; const q = new URLSearchParams();
      for (const input of div.querySelectorAll("input")) { if (!input.value) continue;
        if (input.dataset.in === "path") url = url.replace("{" + input.dataset.name + "}", encodeURIComponent(input.value)); else q.append(input.dataset.name, input.value); }
      const headers = { "x-api-key": document.getElementById("key").value };
      const init = { method: method.toUpperCase(), headers };
      if (body) { headers["content-type"] = "application/json"; init.body = div.querySelector("textarea").value; }
      const res = await fetch(url + (q.size ? "?" + q : ""), init); const pre = div.querySelector("pre");
      pre.hidden = false; pre.textContent = res.status + "\\n" + JSON.stringify(await res.json().catch(() => null), null, 2);
    };
    ops.appendChild(div);
  }
});
</script></body></html>`;
