// The report's style sheet. Colours of the chart's kinds are those of experiments/plot/gantt.py
// (sim/report/palette.cc); the rest is plain, printable and readable on a projector.
#include "sim/report/html_page.h"

namespace pipegrid::report {

std::string_view page_style() {
  return R"css(*{box-sizing:border-box}
body{margin:0;background:#f3f4f7;color:#1f2328;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
.wrap{max-width:1220px;margin:0 auto;padding:0 24px}
header{background:#1f2a44;color:#fff;padding:18px 0 16px}
header .brand{margin:0;font-size:12px;letter-spacing:.12em;text-transform:uppercase;color:#9fb3d9}
header h1{margin:2px 0 0;font-size:26px;font-weight:650}
header .subtitle{margin:4px 0 0;color:#d5def0}
section{background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(0,0,0,.08);padding:16px 22px 18px;margin:18px 0}
section section{box-shadow:none;border:1px solid #e3e6ea;margin:14px 0}
h2{margin:0 0 12px;font-size:20px}
h3{margin:0 0 10px;font-size:17px}
p{margin:6px 0}
code,pre{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:13px}
p code,td code{background:#f0f2f5;padding:1px 4px;border-radius:3px}
.note{color:#57606a;font-size:13px}
.tiles{display:flex;flex-wrap:wrap;gap:12px}
.tile{border:1px solid #e3e6ea;border-radius:8px;padding:10px 16px;min-width:160px}
.tile .value{font-size:28px;font-weight:650;font-variant-numeric:tabular-nums}
.tile .label{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:#57606a}
.tile .detail{font-size:12px;color:#8c959f}
.pace{margin-top:12px}
table{border-collapse:collapse;font-size:13.5px;margin:6px 0}
th,td{padding:4px 10px;border-bottom:1px solid #eaecef;text-align:right;font-variant-numeric:tabular-nums}
th{background:#f3f4f7;font-weight:600}
tbody tr:nth-child(even){background:#fafbfc}
td:first-child,th:first-child{text-align:left}
dl.inputs{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:0 24px;margin:0;font-size:13.5px}
dl.inputs div{display:flex;justify-content:space-between;gap:12px;border-bottom:1px solid #eaecef;padding:3px 2px}
dl.inputs dt{color:#57606a}
dl.inputs dd{margin:0;font-weight:600;text-align:right;word-break:break-all}
td.t,th.t{text-align:left}
table.cycle td,table.cycle th{text-align:left}
th.wide,td.wide{text-align:left}
.timebar{display:flex;width:220px;height:12px;border-radius:3px;overflow:hidden;background:#eee}
.timebar i{display:block;height:100%}
.timebar .busy{background:#3b75af}.timebar .comm{background:#222}.timebar .idle{background:#f7c4c4}
.meter{display:inline-block;vertical-align:middle;width:110px;height:10px;background:#eee;border-radius:3px;margin-right:8px;overflow:hidden}
.meter i{display:block;height:100%;background:#d62728}
.over{color:#c62828}
figure.chart{margin:0}
svg.gantt{display:block;width:100%;height:auto}
svg.gantt text{font:10px system-ui,"DejaVu Sans",sans-serif;fill:#fff;text-anchor:middle;pointer-events:none}
svg.gantt text.dark{fill:#1a1a1a}
svg.gantt text.rank{fill:#1f2328;font-size:12.5px;font-weight:600;text-anchor:end}
svg.gantt text.host{fill:#6a737d;text-anchor:end}
svg.gantt .axis line{stroke:#d8dce1}
svg.gantt .axis text{fill:#57606a;font-size:11px}
svg.gantt .axis text.unit{fill:#1f2328;font-size:12px}
svg.gantt line.end{stroke:#111;stroke-width:1.5}
svg.gantt line.deadline{stroke:#c62828;stroke-width:1.5;stroke-dasharray:5 3}
svg.gantt text.deadline{fill:#c62828;font-size:12.5px;font-weight:700}
svg.gantt text.blocked{fill:#8e0000;font-size:11.5px;font-weight:600;text-anchor:start;paint-order:stroke;stroke:#fff;stroke-width:3px}
svg.gantt path.wait{fill:none;stroke:#c62828;stroke-width:2.2}
svg.gantt circle.wait{fill:#c62828}
svg.gantt text.wait{fill:#c62828;font-size:12.5px;font-weight:700;text-anchor:start;paint-order:stroke;stroke:#fff;stroke-width:3.5px}
svg.gantt text.wait.left{text-anchor:end}
figcaption{margin-top:8px}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px}
.key{display:inline-flex;align-items:center}
.key i{display:inline-block;width:16px;height:12px;margin-right:6px;border-radius:2px}
.key i.hatch{background:repeating-linear-gradient(45deg,#b71c1c 0 2px,#fdecec 2px 5px)}
.key i.arrow{height:2px;background:#b71c1c;border-radius:0}
section.deadlock{border-left:6px solid #b71c1c}
section.deadlock>h2,section.deadlock>h3{color:#b71c1c}
.chain{font-size:17px;font-weight:600;background:#fdecec;border-radius:6px;padding:10px 14px;margin:4px 0 8px}
.fix{background:#e8f5e9;border-left:5px solid #2e7d32;border-radius:4px;padding:10px 14px;margin-top:12px;font-size:15.5px}
.shape{font-family:"DejaVu Sans Mono",monospace;font-size:12px;background:#fff;border:1px solid #a5d6a7;border-radius:10px;padding:1px 8px;margin-left:6px;color:#2e7d32}
.lesson .part{border-left:5px solid;border-radius:4px;padding:8px 14px;margin:10px 0}
.lesson .see{border-color:#1565c0;background:#eef5fc}
.lesson .why{border-color:#6a1b9a;background:#f6eef9}
.lesson .fixit{border-color:#2e7d32;background:#eef7ef}
.source{font-size:13.5px;color:#444}
.outcomes{display:grid;grid-template-columns:1fr 1fr;gap:14px}
.card{border:1px solid #e3e6ea;border-top:5px solid;border-radius:8px;padding:10px 16px}
.card.broken{border-top-color:#b71c1c}.card.fixed{border-top-color:#2e7d32}
.card .what{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:#57606a}
.card .outcome{font-size:19px;font-weight:650}
pre.toml{background:#f6f8fa;border:1px solid #e3e6ea;border-radius:6px;padding:10px 14px;overflow:auto;max-height:480px}
.part pre{background:rgba(255,255,255,.7);border:1px solid #e3e6ea;border-radius:6px;padding:8px 12px;white-space:pre-wrap;overflow-wrap:anywhere}
footer{color:#8c959f;font-size:12px;padding-bottom:24px}
@media print{body{background:#fff}section{box-shadow:none;border:1px solid #ddd;break-inside:avoid}}
)css";
}

}  // namespace pipegrid::report
