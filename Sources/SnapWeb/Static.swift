import SnapCore
import SnapText

extension PairingRoom {
    /// The page's only style sheet and script, served from the binary: nothing to install, nothing to
    /// fetch from elsewhere (the Content-Security-Policy allows only this station).
    func staticFile(_ name: String, _ words: Words) throws -> WebReply {
        let (type, text): (String, String) =
            switch name {
            case "style.css": ("text/css; charset=utf-8", Self.styleSheet)
            case "page.js": ("text/javascript; charset=utf-8", Self.script)
            default: throw WebProblem.notFound(words("page.problem.no_file"), words)
            }
        return WebReply(headers: [("Content-Type", type), ("Cache-Control", "max-age=3600")], body: Array(text.utf8))
    }

    static let styleSheet = """
        :root { --ink: #1d2327; --muted: #65717a; --line: #d9dee2; --panel: #f4f6f7; --accent: #1f7a5c;
          --warn: #a8401a; --bg: #ffffff; --field: #75808a; color-scheme: light dark;
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        @media (prefers-color-scheme: dark) { :root { --ink: #e8ecee; --muted: #9aa6ae; --line: #36414a;
          --panel: #20282e; --accent: #5fd0a5; --warn: #ff9a70; --bg: #14191d; --field: #7a8791; } }
        * { box-sizing: border-box; }
        body { margin: 0; color: var(--ink); background: var(--bg); line-height: 1.45; overflow-wrap: break-word;
          hyphens: auto; }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem 1rem; padding: .6rem 1rem;
          border-bottom: 1px solid var(--line); background: var(--bg); }
        /* The header stays on screen only where it is one short line (a wide screen, text at its usual
           size: media queries' em follow the browser's text setting): on a phone, or with large text, it
           would cover the field the focus is on (WCAG 2.2 SC 2.4.11), so there it scrolls away. */
        @media (min-width: 48em) and (min-height: 30em) { header { position: sticky; top: 0; }
          html { scroll-padding-top: 4.5rem; } }
        .brand { font-weight: 700; color: var(--ink); text-decoration: none; }
        nav { display: flex; flex-wrap: wrap; gap: .2rem .9rem; }
        nav a { color: var(--accent); text-decoration: none; padding: .2rem 0; }
        main { max-width: 52rem; margin: 0 auto; padding: .5rem 1rem 3rem; }
        h1 { font-size: 1.5rem; margin: .8rem 0; } h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem; }
        a { color: var(--accent); }
        .banner { background: var(--accent); padding: .6rem .8rem; border-radius: .5rem; }
        .banner a { color: var(--bg); font-weight: 600; }
        .notice { background: var(--panel); border-left: 4px solid var(--accent); padding: .5rem .8rem; }
        .problem { background: var(--panel); border-left: 4px solid var(--warn); padding: .5rem .8rem; color: var(--warn); }
        .empty, small, .when { color: var(--muted); }
        small { overflow-wrap: anywhere; }
        .totals { display: flex; flex-wrap: wrap; gap: .3rem 1rem; align-items: baseline; font-size: 1.2rem;
          background: var(--panel); padding: .7rem .9rem; border-radius: .6rem; }
        .kcal { font-weight: 700; } .pcf { color: var(--muted); }
        /* A goal's name, its meter and its numbers on one line, wrapping on a narrow screen or with large
           text rather than squeezing the meter to nothing. */
        .goals li { display: flex; flex-wrap: wrap; gap: .2rem .6rem; align-items: center; padding: .2rem 0; }
        .goals li span:first-child { flex: 0 0 7rem; }
        .goals li span:last-child { flex: 0 1 auto; min-width: 8.5rem; text-align: right; }
        .charts figure { margin: 1rem 0; } .chart { width: 100%; height: auto; display: block; }
        /* Protein, carbs and fats told apart by pattern as well as colour: plain, stripes, dots (the
           patterns are defined once on History, in svg.patterns). */
        .chart .p, .legend .p { fill: #4f9d69; background: #4f9d69; } .swatch-c { fill: #e0a43a; }
        .swatch-f { fill: #c8553d; } .patterns .mark { fill: var(--bg); }
        .chart .c { fill: url(#pattern-c); } .chart .f { fill: url(#pattern-f); }
        .legend .c { background: repeating-linear-gradient(45deg, #e0a43a 0 4px, var(--bg) 4px 6px); }
        .legend .f { background: radial-gradient(circle, var(--bg) 1.5px, #c8553d 2px) 0 0 / 6px 6px; }
        svg.patterns { position: absolute; width: 0; height: 0; }
        .chart .kcal { fill: var(--muted); }
        /* The chart's text in the page's text size: its user units are about half a CSS pixel on a
           phone (a 700-unit-wide chart in ~360 px), about one on a wider screen. */
        .chart .grid { stroke: var(--muted); stroke-width: .5; opacity: .4; } .chart .axis { font-size: 1.7rem; fill: var(--muted); }
        .chart line.goal { stroke: var(--ink); stroke-width: 1.5; stroke-dasharray: 6 4; }
        .chart text.goal { font-size: 1.7rem; fill: var(--ink); }
        @media (min-width: 40em) { .chart .axis, .chart text.goal { font-size: .85rem; } }
        .chart-values summary { cursor: pointer; color: var(--accent); font-weight: 600; padding: .4rem 0; }
        .legend span { display: inline-block; width: .8rem; height: .8rem; border-radius: .2rem; margin: 0 .3rem 0 .6rem; }
        .goals meter { flex: 1 1 6rem; height: 1rem; } .goals li.over span:last-child { color: var(--warn); }
        ul { padding: 0; list-style: none; }
        .meals li a, .days li a { display: flex; flex-wrap: wrap; gap: .8rem; align-items: center; padding: .5rem 0;
          border-bottom: 1px solid var(--line); color: var(--ink); text-decoration: none; }
        .meals img, .nophoto, .photo-row img { width: 72px; height: 72px; object-fit: cover; border-radius: .4rem;
          background: var(--panel); display: inline-block; flex: none; }
        .what { display: flex; flex-direction: column; flex: 1 1 8rem; min-width: 0; overflow-wrap: anywhere; }
        .nums { display: flex; flex-direction: column; align-items: flex-end; text-align: right; }
        @media (min-width: 40rem) { .nums { flex-direction: row; gap: .7rem; align-items: baseline; } }
        details.edit { margin: 1rem 0; } details.edit summary { cursor: pointer; font-weight: 600; color: var(--accent);
          padding: .4rem 0; }
        .days li a { justify-content: space-between; gap: 0 .8rem; }
        .pictures { display: flex; flex-wrap: wrap; gap: .8rem; align-items: flex-start; }
        .photo { max-width: 100%; border-radius: .5rem; } .sticker { max-width: 40%; }
        .fact { font-style: italic; }
        table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
        td, th { text-align: left; padding: .35rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        .items td:not(:first-child), .items th:not(:first-child) { text-align: right; }
        .clash { color: var(--warn); font-weight: 600; }
        .ok { color: var(--accent); } .bad { color: var(--warn); }
        fieldset { border: 1px solid var(--line); border-radius: .5rem; margin: .6rem 0; padding: .5rem .7rem;
          display: flex; flex-wrap: wrap; gap: .4rem .8rem; align-items: center; min-width: 0; }
        legend { font-weight: 600; padding: 0 .3rem; max-width: 100%; overflow-wrap: anywhere; }
        label { display: inline-flex; flex-wrap: wrap; gap: .3rem; align-items: center; max-width: 100%; }
        label.wide { display: flex; flex: 1 1 100%; width: 100%; margin: .3rem 0; }
        label.wide input:not([type=checkbox]) { flex: 1; min-width: 0; }
        input, select, textarea, button { font: inherit; padding: .45rem .55rem; border: 1px solid var(--field);
          border-radius: .4rem; background: var(--bg); color: var(--ink); min-height: 2.4rem; max-width: 100%; }
        input[type=file] { border: none; padding-left: 0; }
        [aria-invalid=true] { border: 2px solid var(--warn); } .field-problem { color: var(--warn); font-weight: 600; }
        .problem ul { margin: .3rem 0 0; padding-left: 1.2rem; list-style: disc; } .problem a { color: var(--warn); }
        .table-box { overflow-x: auto; } table.status td { overflow-wrap: anywhere; }
        input[type=number] { width: 5.5rem; } input[type=checkbox] { min-height: auto; width: 1.2rem; height: 1.2rem; }
        button { background: var(--accent); color: var(--bg); border: none; font-weight: 600; cursor: pointer; }
        button.secondary { background: var(--panel); color: var(--ink); }
        .danger, button.danger { background: var(--warn); color: var(--bg); padding: .45rem .7rem; border-radius: .4rem;
          text-decoration: none; display: inline-block; }
        .buttons, .actions { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; margin: .8rem 0; }
        .actions form { margin: 0; }
        .lines li { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; padding: .25rem 0; }
        .lines .amount, .add .amount { width: 5rem; } .lines .unit, .add .unit { width: 5rem; }
        .lines .name, .add .name { flex: 1; min-width: 6rem; }
        .ticked .name, .ticked .amount, .ticked .unit { text-decoration: line-through; color: var(--muted); }
        .group-card { border: 1px solid var(--line); border-radius: .5rem; padding: .2rem .9rem .7rem; margin: .6rem 0; }
        .group-card h3 { margin: .5rem 0 .2rem; } .members { padding-left: 0; margin: .3rem 0 .4rem; }
        small.hint { flex: 1 1 100%; margin-top: -.2rem; }
        .invite-code { font: 700 1.7rem/1.2 ui-monospace, "DejaVu Sans Mono", monospace; letter-spacing: .08em;
          user-select: all; margin: .8rem 0; }
        svg.qr { display: block; width: 12.5rem; max-width: 100%; height: auto; aspect-ratio: 1; }
        .photo-row { display: flex; gap: .8rem; align-items: center; padding: .4rem 0; border-bottom: 1px solid var(--line); }
        .photo-row span { flex: 1; }
        .preview { display: flex; gap: .6rem; flex-wrap: wrap; flex: 1 1 100%; }
        .preview figure { margin: 0; flex: 1 1 40%; max-width: 20rem; }
        .preview img { width: 100%; height: auto; border-radius: .4rem; }
        .preview figcaption { color: var(--muted); text-align: center; }
        form.inline { display: inline; margin-left: .5rem; } form.inline button { min-height: auto; padding: .2rem .5rem; }
        .pair { display: flex; flex-direction: column; gap: .8rem; max-width: 22rem; }
        .pair input[name=code] { font-size: 1.6rem; letter-spacing: .2em; width: 10rem; }
        @media (min-width: 48rem) { main { padding-top: 1rem; } }
        nav.people { display: flex; flex-wrap: wrap; gap: .3rem .9rem; margin: .2rem 0 .6rem; }
        nav.people a[aria-current] { font-weight: 700; text-decoration: none; }
        .meal .swatch { flex: none; }
        .swatch { display: inline-block; width: .9em; height: .9em; border-radius: 50%; vertical-align: -.1em; }
        """ + personColours

    /// Each person's colour as a class (`person-orange`): the Content-Security-Policy allows no style
    /// attribute, so a colour is named, never written into the page.
    private static let personColours = PersonColour.allCases.map { ".person-\($0.rawValue) { background: \($0.css); }" }
        .joined(separator: "\n")

    /// A little plain script: the filter preview follows the form, a ticked line looks ticked at once, the
    /// phone's time zone is offered, a file is sent as a request's body.
    static let script = """
        "use strict";
        document.addEventListener("DOMContentLoaded", () => {
          const filter = document.getElementById("filter");
          const intensity = document.getElementById("intensity");
          const after = document.getElementById("after");
          const value = document.getElementById("intensity-value");
          let timer = null;
          const update = () => {
            if (value && intensity) {
              const number = Number(intensity.value);
              const text = Number.isInteger(number) ? String(number) : number.toFixed(2);
              value.textContent = text.replace(".", value.dataset.decimal || ".");
            }
            if (!after || !filter || !intensity) return;
            clearTimeout(timer);
            timer = setTimeout(() => {
              after.src = "/settings/preview.jpg?which=after&filter=" + encodeURIComponent(filter.value) +
                "&intensity=" + encodeURIComponent(intensity.value);
            }, 250);
          };
          if (filter) filter.addEventListener("change", update);
          if (intensity) intensity.addEventListener("input", update);
          for (const box of document.querySelectorAll(".lines input[type=checkbox]")) {
            box.addEventListener("change", () => box.closest("li").classList.toggle("ticked", box.checked));
          }
          // The phone's time zone, named beside the station's (data-phone-zone: the note's id), and chosen where
          // the station keeps the system's and the walk-through offers it (data-pick).
          const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
          for (const select of document.querySelectorAll("select[data-phone-zone]")) {
            const note = document.getElementById(select.dataset.phoneZone);
            const known = zone && Array.from(select.options).some((option) => option.value === zone);
            if (!note || !known) continue;
            note.textContent = note.dataset.text.replace("{zone}", zone);
            note.hidden = false;
            if (select.dataset.pick === "1" && !select.hasAttribute("aria-invalid")) select.value = zone;
          }
          // A page that follows the station across its restart (a restore): data-follow is where its state
          // is read, data-state the state shown. Asked every 2 s; a request that fails while the station
          // starts again is asked again, and the page reloads once the state is another.
          for (const follower of document.querySelectorAll("[data-follow]")) {
            const ask = () => fetch(follower.dataset.follow, { cache: "no-store" })
              .then((answer) => (answer.ok ? answer.text() : null))
              .then((state) => {
                if (state !== null && state.trim() !== follower.dataset.state) location.reload();
                else setTimeout(ask, 2000);
              })
              .catch(() => setTimeout(ask, 2000));
            setTimeout(ask, 2000);
          }
          // An update bundle or a backup goes as the request's body (streamed to the station's disk), with
          // the form's CSRF token in a header, to the form's data-upload; the bar follows the upload, the
          // form's data-sent is said while the station works on the file sent, and the page follows the
          // answer when it leads to data-done.
          for (const form of document.querySelectorAll("form.upload")) {
            const send = form.querySelector("button.send");
            const chosen = form.querySelector("input[type=file]");
            if (!send || !chosen) continue;
            send.addEventListener("click", () => {
            const file = chosen.files[0];
            if (!file) return;
            const bar = form.querySelector("progress");
            const problem = form.querySelector("p.problem");
            const request = new XMLHttpRequest();
            request.open("POST", form.dataset.upload);
            request.setRequestHeader("X-CSRF-Token", form.dataset.csrf);
            request.setRequestHeader("X-Bundle-Name", encodeURIComponent(file.name));
            request.setRequestHeader("Content-Type", "application/octet-stream");
            send.disabled = true;
            bar.hidden = false;
            problem.hidden = true;
            const working = form.querySelector("p.working");
            request.upload.addEventListener("progress", (event) => {
              if (event.lengthComputable) bar.value = Math.round(100 * event.loaded / event.total);
            });
            request.upload.addEventListener("load", () => {
              if (!form.dataset.sent || !working) return;
              working.textContent = form.dataset.sent;
              working.hidden = false;
            });
            request.addEventListener("load", () => {
              if (working) working.hidden = true;
              if (request.status === 200 && request.responseURL.includes(form.dataset.done)) {
                location.href = request.responseURL;
                return;
              }
              problem.textContent = request.responseText;
              problem.hidden = false;
              send.disabled = false;
            });
            request.addEventListener("error", () => {
              if (working) working.hidden = true;
              problem.textContent = form.dataset.lost;
              problem.hidden = false;
              send.disabled = false;
            });
            request.send(file);
            });
          }
        });
        """
}
