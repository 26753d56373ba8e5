"""The Distributions view: suit sizes in, the exact outcome distribution out, computed in a worker."""

from fractions import Fraction

from gui_support import make_window, wait_idle

from whist_catalogue.store.distributions import distribution


def test_shows_the_exact_distribution(qtbot):
    window = make_window(qtbot)
    view = window.show_view("distributions")
    view.set_sizes("2, 1")
    qtbot.waitUntil(lambda: view.result is not None and not view.busy, timeout=30_000)
    expected = distribution((2, 1))
    assert view.result == expected
    rows = view.table.cells
    assert [(int(r[0]), int(r[1])) for r in rows] == [(int(w), int(e)) for w, e in expected.counts]
    assert sum(Fraction(r[4]) for r in rows) == 1
    assert "12 deals" in view.summary.text()
    assert view.plot.figure.axes  # drawn


def test_bad_sizes_are_a_message_and_a_newer_request_wins(qtbot):
    window = make_window(qtbot)
    view = window.show_view("distributions")
    view.set_sizes("3,x")
    wait_idle(qtbot, window, view)
    assert view.message.is_error and "not a suit size" in view.message.text()
    view.set_sizes("16,16,16,16")
    view.set_sizes("3,2")  # supersedes the first: only its answer is shown
    wait_idle(qtbot, window, view)
    assert view.result is not None and view.result.sizes == (3, 2)
    assert not view.message.shown


def test_the_view_opens_on_its_example_computed(qtbot):
    window = make_window(qtbot)
    view = window.show_view("distributions")
    qtbot.waitUntil(lambda: view.result is not None and not view.busy, timeout=30_000)
    assert view.input.text() == "4,4,3,2" and view.result == distribution((4, 4, 3, 2))
    assert view.table.cells and view.plot.figure.axes  # neither pane is blank


def _text_boxes(canvas) -> list[tuple[str, object]]:
    """Every piece of text drawn on the figure, with its box on the canvas."""
    figure = canvas.figure
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = [figure._suptitle] if figure._suptitle else []
    for ax in figure.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.get_xticklabels(), *ax.texts]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts if t.get_text() and t.get_visible()]


def test_the_plot_fits_a_small_window(qtbot):
    """At 1000×700 every title, label and note of the figure is inside it and none covers another."""
    window = make_window(qtbot)
    window.resize(1000, 700)
    view = window.show_view("distributions")
    view.set_sizes("13,13,13,13")
    qtbot.waitUntil(lambda: view.result is not None and not view.busy, timeout=30_000)
    qtbot.wait(50)
    boxes = _text_boxes(view.plot.canvas)
    frame = view.plot.figure.bbox
    outside = [text for text, box in boxes
               if box.x0 < frame.x0 - 1 or box.x1 > frame.x1 + 1 or box.y0 < frame.y0 - 1 or box.y1 > frame.y1 + 1]
    assert outside == []
    overlapping = [(a, b) for i, (a, box) in enumerate(boxes) for b, other in boxes[i + 1:]
                   if box.overlaps(other) and box.intersection(box, other).width > 1
                   and box.intersection(box, other).height > 1]
    assert overlapping == []
    assert any("lead changes" in text for text, _ in boxes)
