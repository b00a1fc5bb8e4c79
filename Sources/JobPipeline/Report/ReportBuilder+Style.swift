import FoundationEssentials

/// The report's one stylesheet, inlined into the page (no external resources).
extension ReportBuilder {
    // MARK: style

    static let style = """
        :root { --ink: #1f2933; --muted: #6b7280; --line: #e3e7ee; --bg: #f4f6f9; --card: #ffffff; --head: #eef2f7; }
        * { box-sizing: border-box; }
        html { background: var(--bg); }
        body { margin: 0; color: var(--ink); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "DejaVu Sans", Arial, sans-serif; }
        main { max-width: 1200px; margin: 0 auto; padding: 28px 32px 40px; }
        h1 { font-size: 24px; line-height: 1.25; margin: 2px 0 6px; word-break: break-word; }
        h2 { font-size: 17px; margin: 30px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
        h3 { font-size: 14px; margin: 20px 0 8px; color: #374151; }
        p { margin: 6px 0; }
        .muted, .sub { color: var(--muted); }
        .plus { color: var(--muted); font-weight: 400; }
        .eyebrow { margin: 0; color: var(--muted); font-size: 12px; letter-spacing: .08em; text-transform: uppercase; }
        header.top { display: flex; gap: 24px; align-items: flex-start; justify-content: space-between; }
        .grade-box { flex: none; text-align: center; }
        .grade { width: 76px; height: 76px; border-radius: 16px; color: #fff; font-size: 44px; font-weight: 700; line-height: 76px; text-align: center; }
        .grade-label { color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .06em; margin-top: 4px; }
        .grade-A { background: #16a34a; } .grade-B { background: #d97706; } .grade-C { background: #dc2626; } .grade-none { background: #9ca3af; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 4px 18px 12px; margin-top: 18px; }
        .card h2 { border: 0; margin: 12px 0 8px; padding: 0; }
        .rules { display: flex; flex-wrap: wrap; gap: 8px 14px; margin-bottom: 6px; }
        .rule { display: inline-flex; align-items: center; gap: 8px; background: var(--head); border-radius: 8px; padding: 4px 6px 4px 10px; }
        .rule .k { color: var(--muted); } .rule .v { font-weight: 600; }
        .mini { display: inline-block; min-width: 22px; padding: 0 6px; border-radius: 6px; color: #fff; font-weight: 700; text-align: center; }
        .notes { margin: 6px 0 0; padding-left: 20px; } .notes li { margin: 2px 0; }
        .metrics { display: grid; grid-template-columns: repeat(6, 1fr); gap: 10px; }
        .metric { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 10px 12px; }
        .metric .k { color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .05em; }
        .metric .v { font-size: 20px; font-weight: 650; margin-top: 2px; white-space: nowrap; }
        .metric .n { color: var(--muted); font-size: 12px; }
        .views { display: grid; gap: 16px; align-items: start; }
        .views.pair { grid-template-columns: 4fr 3fr; }
        .views.single { grid-template-columns: minmax(0, 760px); }
        .orbit { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; }
        figure { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 8px; min-width: 0; }
        figure img { display: block; width: 100%; height: auto; border-radius: 6px; background: #e5e7eb; }
        figcaption { display: flex; justify-content: space-between; gap: 8px; font-size: 12px; margin-top: 6px; }
        figcaption span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        table { width: 100%; border-collapse: separate; border-spacing: 0; background: var(--card); border: 1px solid var(--line); border-radius: 10px; overflow: hidden; }
        th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: baseline; }
        tbody tr:last-child td { border-bottom: 0; }
        th { background: var(--head); color: #475569; font-size: 11px; font-weight: 600; text-transform: uppercase; letter-spacing: .05em; white-space: nowrap; }
        tbody tr:nth-child(even) td { background: #fafbfc; }
        .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; }
        .id, .hash { overflow-wrap: anywhere; }
        table.elements td.id { min-width: 300px; }
        td.hash { min-width: 300px; }
        tr.total td { font-weight: 600; background: var(--head); }
        .attrs { color: var(--muted); font-size: 12px; }
        .chip { display: inline-block; padding: 0 8px; border-radius: 999px; font-size: 12px; background: #eceff3; color: #4b5563; }
        .conf-high { background: #dcfce7; color: #166534; } .conf-medium { background: #fef3c7; color: #92400e; } .conf-low { background: #fee2e2; color: #991b1b; }
        .empty { background: var(--card); border: 1px dashed #cbd2dc; border-radius: 10px; padding: 14px 16px; color: var(--muted); }
        footer { margin-top: 32px; padding-top: 12px; border-top: 1px solid var(--line); color: var(--muted); font-size: 12px; }
        @media (max-width: 900px) { .metrics { grid-template-columns: repeat(3, 1fr); } .orbit { grid-template-columns: repeat(2, 1fr); } .views.pair { grid-template-columns: 1fr; } }
        """
}
