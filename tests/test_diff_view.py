"""The diff model chat and inspect show: hunks of added, removed and context lines from v1's
whole texts and from v2's changes and patch, long diffs folded, a new file all added, and no
agent text left able to steer a terminal."""

from __future__ import annotations

from acp_codegen.model.diff_view import (
    ADDED,
    CONTEXT_LINE,
    FILE,
    FOLDED,
    HUNK,
    NOTE,
    REMOVED,
    DiffLine,
    diff_rows,
    diff_text,
    diff_view,
)
from acp_codegen.runtime.wire.jsonvalue import JsonObject

OLD = "".join(f"line {n}\n" for n in range(1, 31))
NEW = OLD.replace("line 5\n", "line five\n").replace("line 20\n", "line 20\nadded\n")
PATCH = """diff --git a/src/app.py b/src/app.py
index 1111111..2222222 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1,3 +1,3 @@ def main():
 keep
-old
+new
diff --git a/src/new.txt b/src/new.txt
new file mode 100644
--- /dev/null
+++ b/src/new.txt
@@ -0,0 +1 @@
+hello
\\ No newline at end of file
"""


def v1(path: str, old: str | None, new: str) -> JsonObject:
    return {"type": "diff", "path": path, "oldText": old, "newText": new}


def test_v1_texts_become_hunks_with_context() -> None:
    view = diff_view(v1("/w/a.py", OLD, NEW))
    assert view is not None
    [file] = view.files
    assert (file.path, file.operation, file.added, file.removed) == ("/w/a.py", "modify", 2, 1)
    first, second = file.hunks
    assert first.header == "@@ -2,7 +2,7 @@"
    assert first.lines[2:5] == (
        DiffLine(CONTEXT_LINE, "line 4"),
        DiffLine(REMOVED, "line 5"),
        DiffLine(ADDED, "line five"),
    )
    assert second.header == "@@ -18,6 +18,7 @@"
    assert DiffLine(ADDED, "added") in second.lines
    assert diff_text(view).splitlines()[:2] == ["diff: /w/a.py (modify +2 -1)", "@@ -2,7 +2,7 @@"]


def test_a_new_file_is_all_added_lines() -> None:
    for item in (
        v1("/w/new.py", None, "a\nb\n"),
        {"type": "diff", "path": "/w/new.py", "newText": "a\nb\n"},
    ):
        view = diff_view(item)
        assert view is not None
        [file] = view.files
        assert file.operation == "add"
        [hunk] = file.hunks
        assert hunk.header == "@@ -0,0 +1,2 @@"
        assert hunk.lines == (DiffLine(ADDED, "a"), DiffLine(ADDED, "b"))


def test_a_long_diff_is_folded_and_says_how_much() -> None:
    new = "".join(f"{n}\n" for n in range(100))
    view = diff_view(v1("/w/big.txt", None, new), max_lines=10)
    assert view is not None
    rows = diff_rows(view)
    # The hunk's header counts: 10 rows of hunk in all.
    assert [row.kind for row in rows] == [FILE, HUNK] + [ADDED] * 9 + [FOLDED]
    assert rows[-1].text == "... 91 more lines"
    assert view.files[0].added == 100 and view.hidden == 91
    unfolded = diff_view(v1("/w/big.txt", None, new), max_lines=None)
    assert unfolded is not None and len(unfolded.files[0].hunks[0].lines) == 100


def test_the_fold_counts_over_all_files() -> None:
    view = diff_view(
        {"type": "diff", "changes": [], "patch": {"format": "git_patch", "text": PATCH}},
        max_lines=3,
    )
    assert view is not None
    first, second = view.files
    assert len(first.hunks[0].lines) == 2 and first.hidden == 1
    assert second.hunks == () and second.hidden == 2
    assert diff_text(view).splitlines()[-1] == "... 2 more lines"


def test_v2_changes_take_their_patch_sections() -> None:
    item = {
        "type": "diff",
        "changes": [
            {"operation": "modify", "path": "/repo/src/app.py"},
            {"operation": "add", "path": "/repo/src/new.txt"},
            {"operation": "move", "oldPath": "/repo/a", "path": "/repo/b"},
        ],
        "patch": {"format": "git_patch", "text": PATCH},
    }
    view = diff_view(item)
    assert view is not None
    app, new, moved = view.files
    assert app.path == "/repo/src/app.py"
    assert app.hunks[0].header == "@@ -1,3 +1,3 @@ def main():"
    assert app.hunks[0].lines == (
        DiffLine(CONTEXT_LINE, "keep"),
        DiffLine(REMOVED, "old"),
        DiffLine(ADDED, "new"),
    )
    assert (new.operation, new.added) == ("add", 1)
    assert new.hunks[0].lines[-1] == DiffLine(NOTE, "\\ No newline at end of file")
    assert moved.hunks == ()
    assert diff_text(view).splitlines()[-1] == "diff: /repo/a -> /repo/b (move)"


def test_a_patch_without_changes_still_shows_its_files() -> None:
    view = diff_view({"type": "diff", "changes": [], "patch": {"format": "x", "text": PATCH}})
    assert view is not None
    assert [(f.path, f.operation) for f in view.files] == [
        ("src/app.py", "modify"),
        ("src/new.txt", "add"),
    ]


def test_what_the_runtime_makes_of_a_v1_diff_reads_as_the_v1_diff() -> None:
    from acp_codegen.runtime.v1.client_updates import _diff

    as_v2 = diff_view(_diff(v1("/w/a.py", OLD, NEW)))
    as_v1 = diff_view(v1("/w/a.py", OLD, NEW))
    assert as_v2 is not None and as_v1 is not None
    assert diff_rows(as_v2) == diff_rows(as_v1)


def test_the_agents_text_cannot_steer_a_terminal() -> None:
    hostile = "\x1b]52;c;cGF3bmVk\x07\u202e\r"
    view = diff_view(v1(f"/w/{hostile}\nx", f"a{hostile}\n", f"b{hostile}\tc\n"))
    assert view is not None
    text = diff_text(view)
    for steering in ("\x1b", "\x07", "\u202e", "\r"):
        assert steering not in text
    assert "\\e]52;c;cGF3bmVk\\x07\\u202e" in text
    assert "/w/\\e]52" in view.files[0].path and "\\nx" in view.files[0].path
    assert "\tc" in text  # a tab in a file's line is kept: it cannot steer anything
    patch = f"--- a/x{hostile}\n+++ b/x{hostile}\n@@ -1 +1 @@{hostile}\n-{hostile}\n+{hostile}\n"
    from_patch = diff_view({"type": "diff", "changes": [], "patch": {"text": patch}})
    assert from_patch is not None
    for steering in ("\x1b", "\x07", "\u202e"):
        assert steering not in diff_text(from_patch)


def test_a_long_line_is_cut() -> None:
    view = diff_view(v1("/w/min.js", None, "x" * 5000))
    assert view is not None
    line = view.files[0].hunks[0].lines[0].text
    assert len(line) < 400 and line.endswith("(4700 more characters)")


def test_other_content_is_no_diff() -> None:
    assert diff_view({"type": "content", "content": {"type": "text", "text": "x"}}) is None
    assert diff_view("diff") is None
