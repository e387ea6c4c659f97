"""mental_imagery: the probe pipeline recovers a planted board signal (and not a random one), and the tiny VLM's loss,
positions and decoding are consistent for every variant."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips26.common.models import optim
from neurips26.papers.mental_imagery.model import EOS, TinyVLM, batch_loss, generate
from neurips26.papers.mental_imagery.probes import cell_accuracy, fit_ridge

torch.set_num_threads(1)


def test_probe_recovers_a_planted_linear_signal():
    rng = np.random.default_rng(0)
    cells = rng.integers(0, 4, size=(600, 9))
    onehot = np.eye(4)[cells].reshape(600, -1)
    X = onehot @ rng.normal(size=(36, 64)) + 0.1 * rng.normal(size=(600, 64))
    pred = fit_ridge(X[:400], cells[:400], 4, 1.0)(X[400:])
    assert cell_accuracy(pred, cells[400:]) > 0.97
    noise = rng.normal(size=(600, 64))
    pred = fit_ridge(noise[:400], cells[:400], 4, 1.0)(noise[400:])
    assert cell_accuracy(pred, cells[400:]) < 0.35  # chance is 0.25


@pytest.mark.parametrize("variant", ["A", "B", "C"])
def test_loss_and_generation_shapes(variant):
    torch.manual_seed(0)
    model = TinyVLM(n_actions=6, n_families=2, d=16, layers=1, heads=2, max_len=3, variant=variant)
    img, fam = torch.rand(4, 16, 108), torch.tensor([0, 1, 0, 1])
    tokens = torch.tensor([[2, 3, EOS, 0], [4, EOS, 0, 0], [5, 6, 7, EOS], [2, EOS, 0, 0]])
    lengths = torch.tensor([2, 1, 3, 1])
    loss, ce = batch_loss(model, img, fam, tokens, torch.rand(4, 4, 16, 108), lengths, 1.0)
    assert torch.isfinite(loss) and (loss > ce if variant != "A" else torch.isclose(loss, ce))
    seqs = generate(model.eval(), img, fam, torch.tensor([EOS, 2, 3]), 4)
    assert all(len(s) <= 4 and set(s) <= {2, 3} for s in seqs)


def test_training_fits_a_memorisable_mapping():
    """Two fixed images, two fixed action sequences: a few hundred steps must reach zero errors (learnability)."""
    torch.manual_seed(0)
    model = TinyVLM(n_actions=4, n_families=1, d=32, layers=1, heads=2, max_len=3, variant="A")
    img, fam = torch.rand(2, 16, 108), torch.zeros(2, dtype=torch.long)
    tokens = torch.tensor([[2, 3, 4, EOS], [5, 2, EOS, 0]])
    lengths = torch.tensor([3, 2])
    opt = optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(60):
        loss, _ = batch_loss(model, img, fam, tokens, torch.zeros(2, 4, 16, 108), lengths, 0.0)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert generate(model.eval(), img, fam, torch.arange(1, 6), 4) == [[2, 3, 4], [5, 2]]


def test_convergence_rule_stops_on_a_dev_plateau():
    """With a zero learning rate the dev loss never improves after the first evaluation: training stops after
    1 + patience evaluations, well before the cap; with a working rate it runs on while the loss falls."""
    from omegaconf import OmegaConf

    from neurips26.papers.mental_imagery.experiments import train

    img, fam = torch.rand(8, 16, 108), torch.zeros(8, dtype=torch.long)
    tokens = torch.tensor([[2, 3, EOS, 0]] * 4 + [[4, EOS, 0, 0]] * 4)
    tensors = (img, fam, tokens, torch.zeros(8, 4, 16, 108), torch.tensor([2] * 4 + [1] * 4))
    for lr in (0.0, 0.01):
        cfg = OmegaConf.create({"train": {"lr": lr, "warmup": 1, "eval_every": 5, "patience": 3, "min_delta": 1e-4,
                                          "max_steps": 200, "batch": 8, "z_weight": 0.0}})
        torch.manual_seed(0)
        model = TinyVLM(n_actions=4, n_families=1, d=16, layers=1, heads=2, max_len=3, variant="A")
        curve = train(model, tensors, tensors, cfg, seed=0)
        if lr == 0:
            assert curve[-1][0] == 4 * 5 and len(curve) == 4
        else:
            assert curve[-1][0] > 4 * 5 and min(c[2] for c in curve) < 0.5 * curve[0][2]


def naive_generate(model, img, fam, allowed, max_steps):
    """The reference decoder: the whole sequence recomputed for every new token (no key/value cache)."""
    from neurips26.papers.mental_imagery.model import Z_TOKENS

    embeds = model.embed(img, fam, [])
    mask = torch.full((model.head.out_features,), float("-inf"))
    mask[allowed] = 0
    out = []
    for t in range(max_steps):
        ids = (model.head(model(embeds).last_hidden_state[:, -1]) + mask).argmax(-1)
        out.append(ids)
        embeds = torch.cat([embeds, model.tok(ids)[:, None]], dim=1)
        if model.variant == "C" and t < max_steps - 1:
            for k in range(Z_TOKENS):
                zk = model.z_head(model(embeds).last_hidden_state[:, -1])
                if model.z_shared:  # the patch encoder and the 2D position of input patch k (row k // 4, column k % 4)
                    ek = model.patch(zk) + model.rows[k // 4, 0] + model.cols[0, k % 4]
                else:
                    ek = model.z_in(zk)
                embeds = torch.cat([embeds, ek[:, None]], dim=1)
    rows = torch.stack(out, 1).tolist()
    return [r[:r.index(EOS)] if EOS in r else r for r in rows]


@pytest.mark.parametrize("variant,n_img,dim", [("A", 36, 48), ("C", 36, 48), ("C", 16, 108)])
@torch.no_grad()
def test_cached_decoding_equals_the_full_recomputation(variant, n_img, dim):
    torch.manual_seed(1)
    model = TinyVLM(n_actions=6, n_families=2, d=16, layers=2, heads=2, max_len=3, variant=variant, n_img=n_img,
                    patch_dim=dim, grid_pos=True).eval()
    assert model.z_shared == (n_img == 16)
    img, fam = torch.rand(6, n_img, dim), torch.tensor([0, 1, 0, 1, 0, 1])
    for allowed in (torch.tensor([EOS, 2, 3, 4]), torch.tensor([2, 3, 4, 5, 6, 7])):  # with and without EOS
        assert generate(model, img, fam, allowed, 4) == naive_generate(model, img, fam, allowed, 4)


@pytest.mark.slow
@pytest.mark.parametrize("heads", [1, 2])
@torch.no_grad()
def test_lean_decoder_equals_gpt2model_on_the_same_weights(heads):
    """The decoder written out in model.py computes what transformers' GPT2Model computes (inputs_embeds, no dropout):
    every hidden state, with and without the key/value cache, on random weights (LayerNorms included)."""
    from transformers import GPT2Config, GPT2Model

    from neurips26.papers.mental_imagery.model import Decoder

    torch.manual_seed(0)
    d, layers, n_pos = 16, 2, 24
    ref = GPT2Model(GPT2Config(vocab_size=1, n_positions=n_pos, n_embd=d, n_layer=layers, n_head=heads,
                               resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=None,
                               eos_token_id=None)).eval()
    for p in ref.parameters():
        p.normal_(0.0, 0.3)
    lean = Decoder(d, layers, heads, n_pos).eval()
    ref_params = dict(ref.named_parameters())
    for name, p in lean.named_parameters():
        src = ref_params[name]
        p.copy_(src.T if p.ndim == 2 and "wpe" not in name else src)  # GPT-2's Conv1D stores (in, out)
    x = torch.randn(3, 10, d)
    a, b = ref(inputs_embeds=x, output_hidden_states=True), lean(x, hidden_states=True)
    assert len(a.hidden_states) == len(b.hidden_states) == layers + 1
    for u, v in zip(a.hidden_states, b.hidden_states):
        torch.testing.assert_close(u, v, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(a.last_hidden_state, b.last_hidden_state, rtol=1e-5, atol=1e-5)
    # incremental: a prefix of 6, then one token at a time, then two at once, each with the cache
    out = lean(x[:, :6], use_cache=True)
    pieces, past = [out.last_hidden_state], out.past_key_values
    for lo, hi in ((6, 7), (7, 8), (8, 10)):
        out = lean(x[:, lo:hi], past=past, use_cache=True)
        pieces.append(out.last_hidden_state)
        past = out.past_key_values
    torch.testing.assert_close(torch.cat(pieces, 1), a.last_hidden_state, rtol=1e-5, atol=1e-5)
    lean.ln_f.weight.add_(0.1)  # the test can fail: a changed weight changes the output
    assert not torch.allclose(lean(x).last_hidden_state, a.last_hidden_state, atol=1e-3)


def test_visual_tokens_go_through_the_image_encoder_when_they_have_its_form():
    """Input patch k of a board (data.patches, 6x6 px) and visual token k of the same board are the same pixels; with
    16 input patches of 6x6 px C embeds z_t as patch(z) + the 2D position of input patch k (z_in unused); with 36
    cell-aligned patches, or z_embed 'separate', by z_in. The parameters start from the same random numbers either way."""
    from neurips26.papers.mental_imagery import data

    board = np.random.default_rng(0).uniform(size=(24, 24, 3)).astype(np.float32)
    p = data.patches(board, 6)
    for k in range(16):
        r, c = divmod(k, 4)
        assert np.array_equal(p[k], board[6 * r:6 * r + 6, 6 * c:6 * c + 6].ravel())
    torch.manual_seed(3)
    model = TinyVLM(n_actions=6, n_families=2, d=16, layers=1, heads=2, max_len=2, variant="C", grid_pos=True)
    torch.manual_seed(3)
    separate = TinyVLM(n_actions=6, n_families=2, d=16, layers=1, heads=2, max_len=2, variant="C", grid_pos=True,
                       z_embed="separate")
    assert model.z_shared and not separate.z_shared
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), separate.state_dict().values()))
    img, fam = torch.tensor(p)[None].repeat(2, 1, 1), torch.tensor([0, 1])
    tokens = torch.tensor([[2, 3, EOS], [4, EOS, 0]])
    z = torch.rand(2, 3, 16, 108)
    z[:, 0] = img  # a visual token block equal to the input image: embedded exactly as the image itself
    emb = model.embed(img, fam, [(tokens[:, 0], z[:, 0])])
    image_part = emb[:, :16]
    assert torch.allclose(emb[:, 18:34], image_part)
    pos = torch.stack([model.rows[k // 4, 0] + model.cols[0, k % 4] for k in range(16)])
    assert torch.allclose(model.embed_z(z[:, 1]), model.patch(z[:, 1]) + pos)
    assert torch.allclose(model.embed_z(z[:, 1, 5:9], 5), model.patch(z[:, 1, 5:9]) + pos[5:9])
    assert torch.allclose(separate.embed_z(z[:, 1]), separate.z_in(z[:, 1]))
    assert not torch.allclose(separate.embed(img, fam, [(tokens[:, 0], z[:, 0])])[:, 18:34], image_part)
    loss, _ = batch_loss(model, img, fam, tokens, z, torch.tensor([2, 1]), 1.0)
    loss.backward()
    assert model.z_in.weight.grad is None and model.patch.weight.grad.abs().sum() > 0
    # other forms: the separate embedding, whatever z_embed says
    cells = TinyVLM(n_actions=6, n_families=2, d=16, layers=1, heads=2, max_len=2, variant="C", n_img=36,
                    patch_dim=48, grid_pos=True)
    assert not cells.z_shared and torch.allclose(cells.embed_z(z[:, 1]), cells.z_in(z[:, 1]))
    with pytest.raises(ValueError, match="z_embed"):
        TinyVLM(n_actions=6, n_families=2, d=16, layers=1, heads=2, max_len=2, variant="C", z_embed="both")
