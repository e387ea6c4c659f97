"""docscope's benchmark design (issue #58 item 3): with `balanced_cells` every (clusters, distance bin, operation) cell
of each k >= 2 is planned within a seed's documents; without it the random draw is unchanged."""

from collections import Counter

import numpy as np

from neurips26.common.docbench import doc_benchmark as B


def _plan(spec, n_docs=8):
    return [t for d in range(n_docs) for t in B._plan_targets(np.random.default_rng(d), spec.questions_per_doc, spec, d)]


def test_balanced_cells_fill_every_cell_of_each_k():
    spec = B.Spec(questions_per_doc=20, balanced_cells=True)
    counts = Counter(t for t in _plan(spec) if t is not None)
    feasible = {2: 4, 3: 6, 4: 8}  # (clusters, bin) cells per k: 1 cluster is near; 3+ clusters are never near
    for k, n_cells in feasible.items():
        cells = {t[1:] for t in counts if t[0] == k}
        assert len(cells) == 2 * n_cells  # each (clusters, bin) with both operations of that k
        assert max(counts[(k, *c)] for c in cells) - min(counts[(k, *c)] for c in cells) <= 1  # in turn: balanced
    assert sum(t is None for t in _plan(spec)) == 8 * 2  # 10% unanswerable per document, as before


def test_random_draw_unchanged_without_balanced_cells():
    spec = B.Spec(questions_per_doc=20)
    plan = _plan(spec, n_docs=1)
    assert all(t is None or len(t) == 3 for t in plan)
    assert plan == [t for t in B._plan_targets(np.random.default_rng(0), 20, spec)]  # doc_index plays no part
