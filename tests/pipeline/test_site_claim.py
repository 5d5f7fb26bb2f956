"""The same site name in two configs that share a data folder (issue 28): each run would remove the other's
documents as vanished; the second config's run is refused with one line, and a config that moved takes over."""

from __future__ import annotations

from pathlib import Path

import pytest

from siterag.lock import SiteClaimedError, claim_site


def _config(path: Path, folder: str) -> Path:
    path.write_text(f'[defaults]\ndata_dir = "data"\n[[site]]\nname = "s"\nlocal_path = "{folder}"\n',
                    encoding="utf-8")
    return path


@pytest.mark.bad_input
def test_two_configs_may_not_archive_one_site_name_into_one_data_folder(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    one, two = _config(tmp_path / "one.toml", "a"), _config(tmp_path / "two.toml", "b")
    data = tmp_path / "data"
    claim_site(data, "s", one)
    claim_site(data, "s", one)  # the same config again: fine
    with pytest.raises(SiteClaimedError, match="also archived by .*one.toml"):
        claim_site(data, "s", two)
    one.rename(tmp_path / "moved.toml")  # the first config is gone (moved): the site is free again
    claim_site(data, "s", two)
    _config(tmp_path / "moved.toml", "a").rename(one)
    one.write_text('[defaults]\ndata_dir = "other"\n[[site]]\nname = "s"\nlocal_path = "a"\n', encoding="utf-8")
    claim_site(data, "s", two)  # one.toml now keeps its site elsewhere: no clash
