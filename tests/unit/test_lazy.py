"""common/lazy.py: paper modules loaded on first use, with torch seeded exactly as an eager import would have it."""

import subprocess
import sys
import textwrap

from neurips26.common.lazy import deferred, lazy_modules


def run_fresh(code: str) -> str:
    """In a fresh interpreter: whether torch is loaded depends on what the code imported, not on this test session."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=True, capture_output=True,
                          text=True).stdout.strip()


def test_importing_a_stages_module_loads_neither_torch_nor_matplotlib():
    out = run_fresh("""
        import sys
        import neurips26.papers.wd_eos.stages as stages
        print(sorted(stages.STAGES) and [m for m in ("torch", "matplotlib", "scipy.stats") if m in sys.modules])
    """)
    assert out == "[]"


def test_a_module_loaded_after_seeding_gets_torch_seeded_as_if_imported_before():
    out = run_fresh("""
        from neurips26.common.lazy import lazy_modules
        from neurips26.common.seeding import seed_everything
        seed_everything(7)
        nn = lazy_modules("torch", "nn")  # loading torch.nn brings torch in after the seed
        layer = nn.Linear(3, 2)
        import torch
        late = layer.weight.detach().clone()
        torch.manual_seed(7)
        eager = torch.nn.Linear(3, 2).weight.detach()
        print(torch.equal(late, eager))
    """)
    assert out == "True"


def test_lazy_modules_and_deferred_reach_the_real_module():
    path_, decoder_ = lazy_modules("os", "path"), lazy_modules("json", "decoder")
    assert path_.join("a", "b") == "a/b"
    assert decoder_.JSONDecodeError.__name__ == "JSONDecodeError"
    join = deferred(path_, "join")
    assert join.__name__ == "join" and join("x", "y") == "x/y"
