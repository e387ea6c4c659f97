"""common/pipeline/lazy.py: paper modules loaded on first use, with torch seeded exactly as an eager import would have it."""

import subprocess
import sys
import textwrap

import pytest

from neurips26.common.pipeline.lazy import deferred, lazy_modules


def run_fresh(code: str) -> str:
    """In a fresh interpreter: whether torch is loaded depends on what the code imported, not on this test session."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.mark.slow
def test_importing_any_papers_stages_loads_neither_torch_nor_matplotlib():
    """Every job imports its paper's stages module; what that import loads, every run, table and claims job pays for.
    One interpreter imports the papers in turn and reports the first one after which a heavy module is loaded."""
    out = run_fresh("""
        import sys
        from neurips26.common.pipeline.registry import load_papers
        heavy = ("torch", "matplotlib", "scipy.stats", "sklearn", "transformers")
        for paper in [p.id for p in load_papers() if p.implemented]:
            __import__(f"neurips26.papers.{paper}.stages")
            loaded = [m for m in heavy if m in sys.modules]
            if loaded:
                print(paper, loaded)
                break
        else:
            print("none")
    """)
    assert out == "none"


@pytest.mark.slow
def test_a_module_loaded_after_seeding_gets_torch_seeded_as_if_imported_before():
    out = run_fresh("""
        from neurips26.common.pipeline.lazy import lazy_modules
        from neurips26.common.pipeline.seeding import seed_everything
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
