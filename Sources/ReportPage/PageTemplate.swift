/// The page, as a Mustache template (`{{x}}` escapes HTML, `{{{x}}}` inserts it as is: only
/// for the SVG that gnuplot drew). Self-contained: styles inline, no script, nothing fetched.
enum PageTemplate {
    static let text = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>WidgetSim report: {{identity.scenario}}</title>
    {{> style}}
    </head>
    <body>
    <h1>WidgetSim report: {{identity.scenario}}</h1>
    <p class="lead">{{description}}</p>
    <dl class="identity" id="identity">
    {{#identityRows}}<dt>{{name}}</dt><dd>{{value}}</dd>
    {{/identityRows}}
    </dl>
    <nav>{{#sections}}<a href="#{{anchor}}">{{title}}</a>{{/sections}}</nav>

    {{#recommend}}
    <h2 id="recommend">Recommendations</h2>
    <p>{{{intro}}}</p>
    <ul class="answers" id="answers">
    {{#answers}}<li data-goal="{{goal}}" data-verdict="{{verdict}}">{{{sentence}}}</li>
    {{/answers}}
    </ul>
    <div class="scroll"><table class="headline" id="recommend-table">
    <thead><tr><th class="pair">goal</th><th class="pair">metric</th><th class="pair">verdict</th><th class="pair">pairs</th><th>difference to the baseline (95%)</th></tr></thead>
    <tbody>
    {{#answers}}<tr data-goal="{{goal}}" data-verdict="{{verdict}}" data-diff-mean="{{differenceMean}}" data-low="{{low}}" data-high="{{high}}"><td class="pair">{{goal}}</td><td class="pair"><code>{{metric}}</code></td><td class="pair">{{verdict}}</td><td class="pair">{{pairs}}</td><td>{{difference}}</td></tr>
    {{/answers}}
    </tbody>
    </table></div>
    {{#charts}}
    {{> chart}}
    {{/charts}}
    {{/recommend}}

    <h2 id="headline">Headline figures</h2>
    <p>Mean over replications over the measured days, ± the 95% half-width (from <code>comparison.csv</code>).{{#baseline}} The highlighted row is the baseline, {{baseline}}.{{/baseline}}</p>
    <div class="scroll"><table class="headline" id="headline-table">
    <thead><tr><th class="pair">budget</th><th class="pair">ranking</th>{{#headlineColumns}}<th title="{{column}}">{{label}}</th>{{/headlineColumns}}</tr></thead>
    <tbody>
    {{#headlineRows}}<tr{{#baseline}} class="baseline"{{/baseline}} data-budget="{{budget}}" data-ranking="{{ranking}}"><td class="pair">{{budget}}</td><td class="pair">{{ranking}}</td>{{#cells}}<td data-metric="{{metric}}" data-mean="{{mean}}" data-half-width="{{halfWidth}}">{{text}}</td>{{/cells}}</tr>
    {{/headlineRows}}
    </tbody>
    </table></div>

    {{#targets}}
    <h2 id="targets">Targets</h2>
    <p>{{intro}}</p>
    <div class="scroll"><table class="headline" id="targets-table">
    <thead><tr><th class="pair">target</th><th class="pair">pairs</th><th>measured</th><th>95% interval</th><th>met</th></tr></thead>
    <tbody>
    {{#rows}}<tr data-value="{{value}}" data-low="{{low}}" data-high="{{high}}" data-met="{{met}}"><td class="pair">{{target}}</td><td class="pair">{{pairs}}</td><td>{{figure}}</td><td>{{interval}}</td><td>{{met}}</td></tr>
    {{/rows}}
    </tbody>
    </table></div>
    {{/targets}}

    {{#figureSections}}
    <h2 id="{{anchor}}">{{title}}</h2>
    <p>{{{intro}}}</p>
    {{#absent}}<p class="absent">{{{absent}}}</p>{{/absent}}
    <div class="{{layout}}">
    {{#charts}}
    {{> chart}}
    {{/charts}}
    </div>
    {{{html}}}
    {{/figureSections}}

    <h2 id="legend">What the metrics mean</h2>
    <dl class="legend">
    {{#legend}}<dt>{{name}}</dt><dd>{{meaning}}</dd>
    {{/legend}}
    </dl>
    <p class="files">Each figure's data and gnuplot script are in report/ beside this page; <code>cd report &amp;&amp; gnuplot NAME.gp</code> redraws one. <code>widgetsim report FOLDER</code> rebuilds the page from the CSVs.</p>
    </body>
    </html>

    """#

    /// One chart of the page (`{{> chart}}`), with its caption and the files it was drawn from.
    static let chart = #"""
    <figure class="chart" id="chart-{{name}}" data-marks="{{marks}}">
    <figcaption>{{{caption}}}</figcaption>
    <div class="chartbox">{{{svg}}}</div>
    <p class="files">report/{{name}}.gp · {{files}}</p>
    </figure>

    """#

    /// The pages' style sheet (`{{> style}}`): the run page's and the batch page's.
    static let style = #"""
    <style>
    body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f; margin: 0 auto; max-width: 1120px; padding: 1.5em 2em 4em; }
    h1 { font-size: 1.7em; margin-bottom: 0.2em; }
    h2 { font-size: 1.3em; margin-top: 2.2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
    p.lead { color: #555; margin-top: 0; }
    dl.identity { display: grid; grid-template-columns: max-content 1fr; gap: 0.15em 1.2em; font-size: 0.93em; }
    dl.identity dt { color: #666; }
    dl.identity dd { margin: 0; font-family: ui-monospace, monospace; word-break: break-all; }
    nav { display: flex; flex-wrap: wrap; gap: 0.2em 1em; }
    nav a { white-space: nowrap; }
    figure.chart { margin: 1.2em 0; min-width: 0; }
    figure.chart svg { width: 100%; min-width: 560px; height: auto; display: block; }
    div.chartbox { overflow-x: auto; }
    figcaption { font-size: 0.92em; color: #333; margin-bottom: 0.4em; }
    p.files { font-size: 0.8em; color: #777; margin: 0.2em 0 0; font-family: ui-monospace, monospace; }
    div.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(500px, 100%), 1fr)); gap: 0 1.5em; }
    div.grid figure.chart svg { min-width: 500px; }
    @media (max-width: 600px) { body { padding: 1em 0.8em 3em; } h1 { font-size: 1.4em; } }
    p.absent { background: #f6f6f6; border-left: 4px solid #bbb; padding: 0.6em 1em; color: #444; }
    div.scroll { overflow-x: auto; max-width: 100%; }
    table.headline td.pair { white-space: normal; min-width: 7em; }
    table.headline { border-collapse: collapse; font-size: 0.88em; font-variant-numeric: tabular-nums; }
    table.headline th, table.headline td { padding: 0.25em 0.7em; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
    table.headline thead th { white-space: normal; min-width: 6em; }
    table.headline th.pair, table.headline td.pair { text-align: left; }
    table.headline thead th { border-bottom: 2px solid #999; vertical-align: bottom; }
    table.headline tr.baseline td { background: #fff7d6; font-weight: 600; }
    table.steps td { white-space: normal; }
    table.steps td.flat { color: #888; }
    table.steps td.change { font-weight: 600; }
    ul.answers li { margin: 0.35em 0; }
    code { font-family: ui-monospace, monospace; font-size: 0.92em; background: #f3f3f3; padding: 0 0.2em; border-radius: 3px; }
    dl.legend dt { font-weight: 600; font-family: ui-monospace, monospace; margin-top: 0.5em; }
    dl.legend dd { margin-left: 1.5em; }
    @media (max-width: 600px) {
      table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; }
      table.stack thead { display: none; }
      table.stack tr { border-bottom: 1px solid #ddd; padding: 0.4em 0; }
      table.stack td { text-align: left; white-space: normal; border: 0; padding: 0.1em 0; }
      table.stack td[data-label]::before { content: attr(data-label) ": "; color: #666; }
    }
    </style>

    """#
}
