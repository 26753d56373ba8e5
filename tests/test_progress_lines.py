"""Progress on stderr (scripts/progress.py): what it says when stderr is a file or a pipe."""

from whist_catalogue.scripts import progress
from whist_catalogue.scripts.progress import LevelProgress, ProgressBar


def test_a_quick_command_says_nothing_and_a_slow_one_its_held_lines(capsys, monkeypatch):
    with ProgressBar("statistics", " levels") as bar:
        bar.show(0, 14)
        bar.show(14, 14)
    assert capsys.readouterr().err == ""  # not "0 of 14 levels (0 %)" after the answer
    monkeypatch.setattr(progress, "QUIET_S", 0.0)  # a command that took longer than the quiet second
    with ProgressBar("statistics", " levels") as bar:
        bar.show(0, 14)
    assert capsys.readouterr().err == "statistics: 0 of 14 levels (0 %)\n"


def test_a_stage_without_a_count_is_its_name_and_each_level_its_own_label(capsys, monkeypatch):
    monkeypatch.setattr(progress, "QUIET_S", 0.0)
    with LevelProgress() as bar:
        bar.stage("n=14: reading level 13 back from the catalogue")
        bar(14, 0, 10)
        bar(15, 0, 20)
    err = capsys.readouterr().err
    assert "0.00/1.00" not in err and "of 1 deals" not in err
    assert err.splitlines() == ["n=14: reading level 13 back from the catalogue …",
                                "valuing n=14: 0 of 10 deals (0 %)", "valuing n=15: 0 of 20 deals (0 %)"]
