"""Config mistakes: each one is a single `siterag: error: <file>: <table/key>: <reason>` line, exit 2, found
when the config is loaded (before any work), never a traceback and never silently accepted.

`test_config_mistake_is_one_clear_line` loads each bad config with `load_config` (pure, fast); the CLI tests drive
`python -m siterag.cli` for a representative subset, the missing file for every subcommand, and `--config` after
the subcommand. Each case is marked `bad_input`: it counts in the suite's `bad inputs: tried N / handled N` line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from siterag.config import ConfigError, cron_problem, load_config
from tests.conftest import ROOT

SITE = '[[site]]\nname = "s"\nlocal_path = "{src}"\n'
URL_SITE = '[[site]]\nname = "w"\nstart_urls = ["http://127.0.0.1:9/"]\n'

# (id, config body, fragments the one line must hold after "<file>: "). {src} is an existing folder beside
# the config, {tmp} the config's folder.
CASES: list[tuple[str, str, tuple[str, ...]]] = [
    ("table [default]", '[default]\nbatch_size = 5\n' + SITE, ("[default]: unknown table", "did you mean [defaults]")),
    ("table [[sites]]", '[[sites]]\nname = "s"\nlocal_path = "{src}"\n', ("[[sites]]: unknown table", "[[site]]")),
    ("table [site]", '[site]\nname = "s"\nlocal_path = "{src}"\n', ("[site]:", "[[site]] (double brackets)")),
    ("[llm] embeded", "[llm]\nembeded = true\n" + SITE, ("[llm] embeded: unknown setting", "did you mean embedded")),
    ("[[site]] max_dept", SITE + "max_dept = 3\n", ('[[site]] "s" max_dept: unknown setting', "max_depth")),
    ("[[site]] start_url", '[[site]]\nname = "w"\nstart_url = "http://a/"\n', ("did you mean start_urls",)),
    ("[defaults] qouta", '[defaults]\nqouta = "1m"\n' + SITE, ("[defaults] qouta", "did you mean quota")),
    ("data_dir in [[site]]", SITE + 'data_dir = "d"\n', ('[[site]] "s" data_dir', "belongs in [defaults]")),
    ("quota in [llm]", '[llm]\nquota = "1m"\n' + SITE, ("[llm] quota", "belongs in [[site]]")),
    ("name in [defaults]", '[defaults]\nname = "x"\n' + SITE, ("[defaults] name", "belongs in [[site]]")),
    ("setting outside a table", 'data_dir = "d"\n' + SITE, ("data_dir: a setting outside any table", "[defaults]")),
    ("defaults = 5", "defaults = 5\n" + SITE, ("[defaults]: must be a table", "got 5")),
    ("[[defaults]]", "[[defaults]]\nbatch_size = 2\n" + SITE, ("[defaults]: write it once",)),
    ("llm = true", "llm = true\n" + SITE, ("[llm]: must be a table", "got true (true/false)")),
    ("batch_size = 0", "[defaults]\nbatch_size = 0\n" + SITE, ("[defaults] batch_size: must be a whole number >= 1",)),
    ("batch_size = -1", "[defaults]\nbatch_size = -1\n" + SITE, ("[defaults] batch_size", "got -1")),
    ('batch_size = "abc"', '[defaults]\nbatch_size = "abc"\n' + SITE, ("[defaults] batch_size", '"abc" (a string)')),
    ("batch_size = 2.5", "[defaults]\nbatch_size = 2.5\n" + SITE, ("[defaults] batch_size", "whole number")),
    ('max_depth = "5"', SITE + 'max_depth = "5"\n', ('[[site]] "s" max_depth', "write 5 without quotes")),
    ('max_depth = "deep"', SITE + 'max_depth = "deep"\n', ('"s" max_depth: must be a whole number >= 0',)),
    ("max_depth = -1", SITE + "max_depth = -1\n", ('"s" max_depth', "got -1")),
    ('max_depth in [defaults] = "5"', '[defaults]\nmax_depth = "5"\n' + SITE, ("[defaults] max_depth",)),
    ('timeout_s = "10"', SITE + 'timeout_s = "10"\n', ('"s" timeout_s: must be a number > 0', "without quotes")),
    ("timeout_s = 0", SITE + "timeout_s = 0\n", ('"s" timeout_s: must be a number > 0',)),
    ('[llm] timeout = "soon"', '[llm]\ntimeout = "soon"\n' + SITE, ("[llm] timeout: must be a number > 0",)),
    ('[llm] timeout = "slow"', '[llm]\ntimeout = "slow"\n' + SITE, ("[llm] timeout", '"slow" (a string)')),
    ('[llm] embedded = "yes"', '[llm]\nembedded = "yes"\n' + SITE, ("[llm] embedded: must be true or false",)),
    ('[llm] embedded_port = "8089"', '[llm]\nembedded_port = "8089"\n' + SITE, ("[llm] embedded_port",)),
    ("[llm] retries = -1", "[llm]\nretries = -1\n" + SITE, ("[llm] retries: must be a whole number >= 0",)),
    ("[llm] max_tokens = 0", "[llm]\nmax_tokens = 0\n" + SITE, ("[llm] max_tokens",)),
    ("[llm] base_url not a URL", '[llm]\nbase_url = "localhost:8080"\n' + SITE, ("[llm] base_url", "http(s) URL")),
    ("[llm] base_urls = [1]", "[llm]\nbase_urls = [1]\n" + SITE, ("[llm] base_urls", "list of strings")),
    ("data_dir = 5", "[defaults]\ndata_dir = 5\n" + SITE, ("[defaults] data_dir: must be a non-empty string",)),
    ('task_runner = "ray"', '[defaults]\ntask_runner = "ray"\n' + SITE, ("[defaults] task_runner", "thread | dask")),
    ('quota = "lots"', SITE + 'quota = "lots"\n', ('"s" quota', 'k, m or g suffix', '"lots"')),
    ("quota = 100", SITE + "quota = 100\n", ('"s" quota', '"100m"', "(a number")),
    ('quota = "100 MB"', SITE + 'quota = "100 MB"\n', ('"s" quota',)),
    ('rate_limit = "fast"', SITE + 'rate_limit = "fast"\n', ('"s" rate_limit', '"fast"')),
    ("rate_limit = 200", SITE + "rate_limit = 200\n", ('"s" rate_limit', '"200k" for 200 kilobytes a second')),
    ("wait = -1", SITE + "wait = -1\n", ('"s" wait: must be a number >= 0',)),
    ('wait = "1"', SITE + 'wait = "1"\n', ('"s" wait', "without quotes")),
    ('schedule = "every day"', SITE + 'schedule = "every day"\n',
     ('"s" schedule', "not a cron expression", "5 fields")),
    ("schedule in [defaults]", '[defaults]\nschedule = "every day"\n' + SITE, ("[defaults] schedule",)),
    ('schedule = "61 * * * *"', SITE + 'schedule = "61 * * * *"\n', ('"s" schedule', "minute '61'", "0-59")),
    ('schedule = "0 3 * * mon-xyz"', SITE + 'schedule = "0 3 * * mon-xyz"\n', ("day of week",)),
    ("schedule = 3", SITE + "schedule = 3\n", ('"s" schedule', "cron string")),
    ('extract_mode = "smart"', SITE + 'extract_mode = "smart"\n', ('"s" extract_mode', "llm | heuristic | hybrid")),
    ('extract_mode = "llm" without [llm]', SITE + 'extract_mode = "llm"\n', ('"s" extract_mode', "[llm] base_url")),
    ("start_urls ftp", '[[site]]\nname = "w"\nstart_urls = ["ftp://host/"]\n',
     ('"w" start_urls', "not an http(s) URL")),
    ("start_urls without scheme", '[[site]]\nname = "w"\nstart_urls = "example.com"\n', ("not an http(s) URL",)),
    ("start_urls = []", '[[site]]\nname = "w"\nstart_urls = []\n', ('"w" start_urls: is empty',)),
    ("start_urls on two hosts", '[[site]]\nname = "w"\nstart_urls = ["http://a/", "http://b/"]\n',
     ('"w" start_urls', "several hosts")),
    ("neither start_urls nor local_path", '[[site]]\nname = "n"\n', ('[[site]] "n": has neither',)),
    ("both start_urls and local_path", URL_SITE + 'local_path = "{src}"\n', ('[[site]] "w": has both',)),
    ("duplicate site names", SITE + SITE, ('[[site]] "s": duplicate site name',)),
    ("site without a name", '[[site]]\nlocal_path = "{src}"\n', ("[[site]] #1: has no name",)),
    ("bad site name", '[[site]]\nname = "a b"\nlocal_path = "{src}"\n', ("[[site]] #1 name", '"a b"')),
    ("no [[site]]", '[defaults]\nbatch_size = 2\n', ("[[site]]: no [[site]] entries",)),
    ('categories = "x"', SITE + 'categories = "x"\n', ('"s" categories', "list of non-empty strings")),
    ('user_agent = ""', SITE + 'user_agent = ""\n', ('"s" user_agent: must be a non-empty string',)),
    ('accept = [1]', SITE + "accept = [1]\n", ('"s" accept',)),
    ("local_path holds data_dir", '[[site]]\nname = "s"\nlocal_path = "."\n',
     ('"s" local_path', "contains the data_dir")),
    ("local_path is its data_dir", '[defaults]\ndata_dir = "{src}"\n' + SITE, ("contains the data_dir",)),
    ("local_path holds the index", '[defaults]\ndata_dir = "/tmp/elsewhere"\n[index]\nuri = "{src}/idx"\n' + SITE,
     ('"s" local_path', "contains the [index] uri")),
    ('local_path = "/"', '[[site]]\nname = "s"\nlocal_path = "/"\n', ('"s" local_path', "filesystem root")),
    ("local_path missing", '[[site]]\nname = "s"\nlocal_path = "nope"\n', ('"s" local_path', "does not exist")),
    ("local_path is a file", '[[site]]\nname = "s"\nlocal_path = "sites.toml"\n', ("is not a folder",)),
    ("[index] url", '[index]\nurl = "s3://b"\n' + SITE, ("[index] url: unknown setting", "did you mean uri")),
    ("invalid TOML", '[defaults]\nbatch_size = \n' + SITE, ("line 2, column 14: invalid TOML",)),
    ("key given twice", '[defaults]\nbatch_size = 1\nbatch_size = 2\n' + SITE, ("line 3", "invalid TOML")),
]


def write(tmp_path: Path, body: str | bytes) -> Path:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    path = tmp_path / "sites.toml"
    if isinstance(body, str):
        body = body.format(src=src, tmp=tmp_path).encode("utf-8")
    path.write_bytes(body)
    return path


def mistake(path: Path) -> str:
    """The message load_config raises ("" when it accepts the file)."""
    try:
        load_config(path)
    except ConfigError as exc:
        return str(exc)
    return ""


@pytest.mark.bad_input
@pytest.mark.parametrize(("name", "body", "fragments"), CASES, ids=[c[0] for c in CASES])
def test_config_mistake_is_one_clear_line(tmp_path, name, body, fragments):
    path = write(tmp_path, body)
    message = mistake(path)
    assert message, f"{name}: accepted"
    assert "\n" not in message and message.startswith(f"{path}: ") and all(f in message for f in fragments), message


def test_valid_configs_still_load(tmp_path):
    assert [s.name for s in load_config(ROOT / "examples" / "sites.toml").sites] == ["example"]
    if (ROOT.parent / "shared" / "sites").is_dir():
        assert len(load_config(ROOT / "examples" / "shared-sites.toml").sites) == 4
    every = ('[defaults]\ndata_dir = "data"\nbatch_size = 3\nembedder = "use-multilingual-v3"\n'
             'task_runner = "dask"\ndask_workers = 2\nschedule = "*/15 1-5 * jan-mar mon-fri"\nquota = "inf"\n'
             '[llm]\nbase_urls = ["http://127.0.0.1:9/v1"]\nmodel = "m"\nembedded = false\nembedded_port = 8090\n'
             'timeout = 2.5\nmax_tokens = 64\nretries = 0\ncontext_tokens = 4096\nmax_concurrent = 2\nenrich = false\n'
             '[index]\nuri = "idx"\nstorage_options = {{ a = "b" }}\n'
             '[[site]]\nname = "w"\nstart_urls = "https://example.com/a/"\naccept = ["*.html"]\nreject = "*.cgi"\n'
             'quota = "5g"\nwait = 0.5\nrate_limit = "200k"\nuser_agent = "ua"\nmax_depth = 5\ntimeout_s = 60\n'
             'extract_mode = "hybrid"\nschedule = "@daily"\ncategories = ["日記"]\n'
             '[[site]]\nname = "s"\nlocal_path = "src"\nrate_limit = ""\nextract_mode = ""\nschedule = "0 4 * * 0"\n')
    cfg = load_config(write(tmp_path, every))
    assert cfg.batch_size == 3 and cfg.llm.timeout == 2.5 and cfg.store.uri == str(tmp_path / "idx")
    w, s = cfg.sites
    assert (w.quota, w.rate_limit, w.max_depth, w.schedule, s.quota) == ("5g", "200k", 5, "@daily", "inf")
    assert s.local_path == str(tmp_path / "src") and s.extract_mode == "heuristic"
    # Saved with a UTF-8 BOM (Windows Notepad): read as usual.
    assert load_config(write(tmp_path, b"\xef\xbb\xbf" + f'[[site]]\nname = "s"\nlocal_path = "{tmp_path / "src"}"\n'
                             .encode())).sites[0].name == "s"


def test_cron_check():
    for good in ("0 3 * * *", "30 4 * * 0", "0 0 1,15 * *", "*/5 * * * 1-5", "0 12 * dec sun", "0 0 * * 7"):
        assert cron_problem(good) is None, good
    for bad in ("every day", "0 3 * *", "0 3 * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *",
                "* * * * 8", "*/0 * * * *", "5-1 * * * *", "a * * * *", "1,,2 * * * *"):
        assert cron_problem(bad), bad


@pytest.mark.bad_input
def test_file_problems(tmp_path):
    assert mistake(tmp_path / "nosuch.toml") == f"{tmp_path / 'nosuch.toml'}: config file not found (give one with " \
                                                 "--config FILE)"
    assert mistake(tmp_path) == f"{tmp_path}: is a folder, not a config file"
    sjis = write(tmp_path, '# 設定ファイル\n[[site]]\nname = "s"\nlocal_path = "src"\n'.encode("cp932"))
    assert mistake(sjis) == f"{sjis}: line 1, column 3: not UTF-8 text (it looks like Shift_JIS); save the config " \
                            "as UTF-8"


# The CLI, as a subprocess: the one line on stderr, exit 2, before any work.

def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
    return subprocess.run([sys.executable, "-m", "siterag.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120)


def one_line(res: subprocess.CompletedProcess, expected: str) -> None:
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    assert res.stderr.splitlines() == [f"siterag: error: {expected}"], res.stderr
    assert "Traceback" not in res.stdout + res.stderr


SUBCOMMANDS = {"run": [], "search": ["tea"], "ask": ["why?"], "status": [], "reindex": [], "forget": ["x"],
               "serve": []}


@pytest.mark.bad_input
@pytest.mark.parametrize("command", list(SUBCOMMANDS))
def test_missing_config_for_every_subcommand(tmp_path, command):
    """`search` used to fall back to data/ silently; every subcommand now says the file is missing."""
    expected = "nosuch.toml: config file not found (give one with --config FILE)"
    one_line(cli("--config", "nosuch.toml", command, *SUBCOMMANDS[command], cwd=tmp_path), expected)
    one_line(cli(command, *SUBCOMMANDS[command], "--config", "nosuch.toml", cwd=tmp_path), expected)


CLI_CASES = [  # (CASES id, subcommand): what a new user ran into, through the real command line
    ("table [default]", "run"), ("[llm] embeded", "run"), ("batch_size = 0", "run"), ("batch_size = -1", "run"),
    ('max_depth = "5"', "status"), ('quota = "lots"', "run"), ('schedule = "every day"', "serve"),
    ("local_path holds data_dir", "run"), ('local_path = "/"', "reindex"), ("invalid TOML", "search"),
    ("data_dir = 5", "status"), ("defaults = 5", "run"), ("local_path is its data_dir", "forget"),
]


@pytest.mark.bad_input
@pytest.mark.parametrize(("case", "command"), CLI_CASES, ids=[c for c, _ in CLI_CASES])
def test_cli_config_mistake_is_one_line(tmp_path, case, command):
    name, body, fragments = next(c for c in CASES if c[0] == case)
    path = write(tmp_path, body)
    extra = SUBCOMMANDS[command]
    res = cli(command, *extra, "--config", str(path), cwd=tmp_path)  # --config after the subcommand
    assert res.returncode == 2 and len(res.stderr.splitlines()) == 1, (res.returncode, res.stderr)
    assert res.stderr.startswith(f"siterag: error: {path}: ") and all(f in res.stderr for f in fragments), res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.bad_input
def test_cli_reads_bom_and_refuses_shift_jis(tmp_path):
    good = write(tmp_path, b"\xef\xbb\xbf[[site]]\nname = \"s\"\nlocal_path = \"src\"\n")
    one_line(cli("run", "other", "--config", str(good)), "unknown site 'other'; sites in the config: s")
    sjis = write(tmp_path, '[[site]]\nname = "お茶"\nlocal_path = "src"\n'.encode("cp932"))
    one_line(cli("--config", str(sjis), "status"),
             f"{sjis}: line 2, column 9: not UTF-8 text (it looks like Shift_JIS); save the config as UTF-8")


def test_config_option_in_every_subcommand_help():
    for command in SUBCOMMANDS:
        res = cli(command, "--help")
        assert res.returncode == 0 and "--config CONFIG" in res.stdout and "sites.toml" in res.stdout, command
