"""Self-contained HTML transcripts of episodes (live rollouts or recorded datasets).

One file per episode (``episode_<k>.html``: the task, each turn's tool call with its arguments and
the response, the final answer, the verifier label and reward, the database rows that changed)
plus ``index.html`` linking them. Files embed their CSS and nothing else: open them anywhere.
An episode renders to the same bytes whether it comes from a live run or from a dataset.

Example:
    >>> from awm_gym.manager.episode import Episode, Turn
    >>> ep = Episode(0, 3, "notes_app", 0, "Count my notes.", "oracle",
    ...              [Turn("There are 2.", "", 1.0, True, False,
    ...                    {"action_kind": "final_answer", "verifier_label": "complete"})])
    >>> html_text = render_episode(ep)
    >>> "Count my notes." in html_text and "complete" in html_text
    True
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from awm_gym import info_keys as K
from awm_gym.atomic_io import write_text_atomic
from awm_gym.manager.episode import DEFAULT_INFO_KEYS, Episode
from awm_gym.tools.actions import ListTools, Malformed, ToolCall, parse_action

__all__ = ["render_episode", "render_index", "write_transcripts", "DEFAULT_TRANSCRIPT_KEYS"]

DEFAULT_TRANSCRIPT_KEYS = DEFAULT_INFO_KEYS
"""Info keys a live rollout keeps for its transcripts (the defaults of a recording, so both
render identically)."""

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:980px;margin:0 auto;padding:24px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 8px}
.meta{color:#5b6475;font-size:13px;margin-bottom:16px}
.badge{display:inline-block;padding:2px 8px;border-radius:10px;font-size:12px;font-weight:600}
.ok{background:#d9f5e3;color:#13693a} .bad{background:#fde2e1;color:#9b1c1c}
.warn{background:#fff1c2;color:#7a5600} .muted{background:#e7e9ee;color:#434a59}
.card{background:#fff;border:1px solid #dde1e8;border-radius:8px;margin:10px 0;overflow:hidden}
.card>.head{padding:8px 12px;background:#f0f2f6;font-size:13px;display:flex;gap:8px;align-items:center}
.card>.body{padding:10px 12px}
.task{border-left:4px solid #3b6fd8} .answer{border-left:4px solid #13693a}
pre{white-space:pre-wrap;word-break:break-word;margin:6px 0;font-size:12.5px;background:#f8f9fb;
padding:8px;border-radius:6px;max-height:420px;overflow:auto}
.label{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:#5b6475}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0 14px;width:100%}
th,td{border:1px solid #dde1e8;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f0f2f6} td.chg{background:#fff7d6} tr.added td{background:#eafaf0}
tr.removed td{background:#fdeeee;text-decoration:line-through}
.info{color:#5b6475;font-size:12px} a{color:#2c5fc9}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _pretty(text: str) -> str:
    """JSON responses indented for reading; anything else as is."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, TypeError):
        return text


def _badge(episode: Episode) -> str:
    label = episode.verifier_label
    if episode.success:
        return '<span class="badge ok">complete</span>'
    if episode.format_error:
        return '<span class="badge bad">format error</span>'
    if episode.truncated:
        return '<span class="badge warn">truncated</span>'
    if label is None:
        return '<span class="badge muted">unfinished</span>'
    return f'<span class="badge bad">{_e(label)}</span>'


def _turn_html(t: int, turn: Any) -> str:
    kind = turn.info.get(K.ACTION_KIND)
    tool = turn.info.get(K.TOOL)
    info = " · ".join(f"{_e(k)}={_e(v)}" for k, v in sorted(turn.info.items())
                      if k not in (K.ACTION_KIND, K.TOOL, K.VERIFIER_LABEL))
    reward = f"reward {turn.reward:+.2f}" if turn.reward else ""
    if kind == "final_answer":
        label = turn.info.get(K.VERIFIER_LABEL, "")
        return (f'<div class="card answer"><div class="head"><b>Turn {t + 1}</b> final answer'
                f'<span class="badge muted">verifier: {_e(label)}</span><span>{_e(reward)}</span>'
                f'</div><div class="body"><pre>{_e(turn.action)}</pre></div></div>')
    parsed = parse_action(turn.action, {tool} if tool else set())
    if isinstance(parsed, ToolCall):
        call = (f'<div class="label">call <b>{_e(parsed.tool)}</b></div>'
                f'<pre>{_e(json.dumps(parsed.arguments, indent=2, ensure_ascii=False))}</pre>')
    elif isinstance(parsed, ListTools):
        call = '<div class="label">call <b>list_tools</b></div>'
    elif isinstance(parsed, Malformed) or kind == "malformed":
        call = f'<div class="label">malformed action</div><pre>{_e(turn.action)}</pre>'
    else:
        call = f'<div class="label">action</div><pre>{_e(turn.action)}</pre>'
    ends = " · truncated" if turn.truncated else (" · terminated" if turn.terminated else "")
    response = (f'<div class="label">response</div><pre>{_e(_pretty(turn.observation))}</pre>'
                if turn.observation else "")
    return (f'<div class="card"><div class="head"><b>Turn {t + 1}</b> {_e(kind or "")}'
            f'<span>{_e(reward)}{_e(ends)}</span></div><div class="body">{call}{response}'
            + (f'<div class="info">{info}</div>' if info else "") + "</div></div>")


def _diff_html(episode: Episode) -> str:
    diff = episode.db_diff
    if diff is None:
        return ""
    if diff.empty:
        return "<h2>Database changes</h2><p class=\"info\">No rows changed.</p>"
    counts = diff.counts()
    parts = [f"<h2>Database changes</h2><p class=\"info\">{counts['added']} added · "
             f"{counts['changed']} changed · {counts['removed']} removed</p>"]
    for table in diff.tables:
        columns: list[str] = []
        for change in table.changes:
            for row in (change.before, change.after):
                for col in row or {}:
                    if col not in columns:
                        columns.append(col)
        head = "".join(f"<th>{_e(c)}</th>" for c in columns)
        parts.append(f"<h3>{_e(table.table)}</h3><table><tr><th></th>{head}</tr>")
        for change in table.changes:
            changed = set(change.changed_columns)
            cells = []
            for col in columns:
                if change.kind == "changed" and col in changed:
                    cells.append(f'<td class="chg">{_e(change.before.get(col))} → '
                                 f'{_e(change.after.get(col))}</td>')
                else:
                    row = change.after if change.after is not None else change.before
                    cells.append(f"<td>{_e(row.get(col))}</td>")
            parts.append(f'<tr class="{change.kind}"><td>{change.kind}</td>{"".join(cells)}</tr>')
        parts.append("</table>")
    return "".join(parts)


def render_episode(episode: Episode) -> str:
    """One episode as a self-contained HTML page."""
    turns = "".join(_turn_html(t, turn) for t, turn in enumerate(episode.turns))
    title = f"{episode.world} · task {episode.task_idx} · episode {episode.episode_idx}"
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}"
            f"</title><style>{_CSS}</style></head><body><main><h1>{_e(title)} {_badge(episode)}"
            f"</h1><div class=\"meta\">seed {episode.seed} · policy {_e(episode.policy)} · "
            f"{episode.num_turns} turns · reward {episode.reward:+.2f}</div>"
            f"<div class=\"card task\"><div class=\"head\"><b>Task</b></div><div class=\"body\">"
            f"<pre>{_e(episode.task)}</pre></div></div>{turns}{_diff_html(episode)}"
            "</main></body></html>\n")


def _file_name(episode: Episode) -> str:
    return f"episode_{episode.episode_idx:06d}.html"


def render_index(episodes: Sequence[Episode], title: str) -> str:
    """The index page: one row per episode with its outcome and a link."""
    rows = "".join(
        f"<tr><td><a href=\"{_file_name(e)}\">{e.episode_idx}</a></td><td>{_e(e.world)}</td>"
        f"<td>{e.task_idx}</td><td>{e.seed}</td><td>{e.num_turns}</td><td>{e.reward:+.2f}</td>"
        f"<td>{_badge(e)}</td><td>{_e(e.task[:120])}</td></tr>" for e in episodes)
    successes = sum(e.success for e in episodes)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}"
            f"</title><style>{_CSS}</style></head><body><main><h1>{_e(title)}</h1>"
            f"<div class=\"meta\">{len(episodes)} episodes · {successes} complete</div><table><tr>"
            "<th>episode</th><th>world</th><th>task</th><th>seed</th><th>turns</th><th>reward</th>"
            f"<th>outcome</th><th>task text</th></tr>{rows}</table></main></body></html>\n")




def write_transcripts(episodes: Iterable[Episode], out_dir: str | os.PathLike,
                      title: str = "Transcripts") -> list[Path]:
    """Write one HTML file per episode and ``index.html`` into ``out_dir``; return the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    episodes = list(episodes)
    paths = []
    for episode in episodes:
        path = out / _file_name(episode)
        write_text_atomic(path, render_episode(episode))
        paths.append(path)
    index = out / "index.html"
    write_text_atomic(index, render_index(episodes, title))
    paths.append(index)
    return paths
