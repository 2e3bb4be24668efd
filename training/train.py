"""Fine-tune the shipped Gemma 3 270M with LoRA on the extraction examples.

    python -m training.train --data build/train/data.jsonl.gz --base-gguf PATH --out build/train/adapter
        [--epochs 3] [--lr 2e-4] [--rank 16] [--batch-tokens 16384] [--max-len 2048] [--seed 0]
        [--max-steps N] [--holdout-fold 0]

The base weights are the Q4_K_M GGUF that llama.cpp serves, loaded by transformers and
dequantised (``training.adapter_gguf.load_base``), so the adapter is trained on exactly the weights
it is applied to. LoRA (Hu et al. 2021, arXiv:2106.09685) on every attention and MLP
projection; the 262k-token embedding (tied to the output layer) stays frozen. The loss is the
cross-entropy of the answer tokens only; logits are computed for those positions alone (a
full 262k-vocabulary logit tensor of a batch would not fit). Examples of the hold-out fold
(``training.dataset.HOLDOUT_FOLD``) are never trained on; their loss is printed per epoch.

Writes a peft adapter folder (``adapter_model.safetensors``, ``adapter_config.json``) and
``train_log.json`` (data counts, steps, losses, seconds, device). Needs the ``train`` extra
(torch, transformers, peft, gguf); runs on CUDA when present, else on CPU (then size it with
``--max-steps`` and ``--max-len``: about 5 s a step of 512 tokens on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

BASE_MODEL_NAME = "gemma-3-270m"
LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def tokenize(examples: list[dict], tokenizer, max_len: int) -> list[tuple[list[int], int]]:
    """(token ids, number of prompt tokens) per example; BOS + prompt + answer + EOS. Examples
    longer than ``max_len`` are dropped (their answer would be cut)."""
    out = []
    for example in examples:
        prompt = tokenizer(example["prompt"], add_special_tokens=False)["input_ids"]
        answer = tokenizer(example["completion"], add_special_tokens=False)["input_ids"]
        ids = [tokenizer.bos_token_id, *prompt, *answer, tokenizer.eos_token_id]
        if len(ids) <= max_len:
            out.append((ids, 1 + len(prompt)))
    return out


def batches(items: list[tuple[list[int], int]], batch_tokens: int, rng: random.Random) -> list[list[int]]:
    """Indices of ``items`` grouped into batches of similar length, at most ``batch_tokens``
    padded tokens each, in random order."""
    order = sorted(range(len(items)), key=lambda i: (len(items[i][0]), rng.random()))
    groups, current, longest = [], [], 0
    for index in order:
        length = len(items[index][0])
        if current and max(longest, length) * (len(current) + 1) > batch_tokens:
            groups.append(current)
            current, longest = [], 0
        current.append(index)
        longest = max(longest, length)
    if current:
        groups.append(current)
    rng.shuffle(groups)
    return groups


def answer_loss(model, batch, device, pad_id: int):
    """Mean cross-entropy of the answer tokens of ``batch`` (list of (ids, prompt_len))."""
    import torch

    width = max(len(ids) for ids, _ in batch)
    input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    targets = torch.full((len(batch), width), -100, dtype=torch.long)
    for row, (ids, prompt_len) in enumerate(batch):
        input_ids[row, : len(ids)] = torch.tensor(ids)
        mask[row, : len(ids)] = 1
        # position t predicts token t+1: the answer tokens are ids[prompt_len:]
        targets[row, prompt_len - 1 : len(ids) - 1] = torch.tensor(ids[prompt_len:])
    input_ids, mask, targets = input_ids.to(device), mask.to(device), targets.to(device)
    causal_lm = model.get_base_model()
    hidden = causal_lm.model(input_ids=input_ids, attention_mask=mask).last_hidden_state
    selected = targets != -100
    logits = causal_lm.lm_head(hidden[selected]).float()
    cap = getattr(causal_lm.config, "final_logit_softcapping", None)
    if cap:
        logits = torch.tanh(logits / cap) * cap
    return torch.nn.functional.cross_entropy(logits, targets[selected]), int(selected.sum())


def evaluate(model, items, device, pad_id: int, batch_tokens: int) -> float:
    import torch

    model.eval()
    total, count = 0.0, 0
    with torch.no_grad(), _autocast(device):
        for group in batches(items, batch_tokens, random.Random(0)):
            loss, n = answer_loss(model, [items[i] for i in group], device, pad_id)
            total += float(loss) * n
            count += n
    model.train()
    return total / max(count, 1)


def _autocast(device):
    import contextlib

    import torch

    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--base-gguf", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=float, default=3.0)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--alpha", type=int, default=32)
    parser.add_argument("--dropout", type=float, default=0.05)
    parser.add_argument("--batch-tokens", type=int, default=16384)
    parser.add_argument("--max-len", type=int, default=2048)
    parser.add_argument("--max-steps", type=int, default=0, help="0: as many as --epochs take")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--holdout-fold", type=int, default=0, help="-1: train on every fold")
    parser.add_argument("--eval-limit", type=int, default=0, help="hold-out examples scored per epoch (0: all)")
    args = parser.parse_args(argv)

    import torch
    from peft import LoraConfig, get_peft_model

    from training.adapter_gguf import load_base
    from training.dataset import fold_of
    from training.examples import read_jsonl

    started = time.perf_counter()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    examples = read_jsonl(args.data)
    train = [e for e in examples if fold_of(e["group"]) != args.holdout_fold]
    holdout = [e for e in examples if fold_of(e["group"]) == args.holdout_fold]
    model, tokenizer = load_base(args.base_gguf)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    train_items = tokenize(train, tokenizer, args.max_len)
    holdout_items = tokenize(holdout, tokenizer, args.max_len)
    if args.eval_limit:
        holdout_items = random.Random(args.seed).sample(holdout_items, min(args.eval_limit, len(holdout_items)))
    print(
        f"device {device} ({torch.cuda.get_device_name(0) if device.type == 'cuda' else 'cpu'}); "
        f"examples: {len(train_items)} train (of {len(train)}), {len(holdout_items)} hold-out (of {len(holdout)}); "
        f"loaded in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    config = LoraConfig(
        r=args.rank,
        lora_alpha=args.alpha,
        lora_dropout=args.dropout,
        target_modules=LORA_TARGETS,
        task_type="CAUSAL_LM",
    )
    model = get_peft_model(model, config).to(device)
    model.train()
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    rng = random.Random(args.seed)
    per_epoch = len(batches(train_items, args.batch_tokens, random.Random(args.seed)))
    total_steps = args.max_steps or math.ceil(per_epoch * args.epochs)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.0)
    warmup = max(1, total_steps // 30)

    def schedule(step: int) -> float:  # linear warm-up, then cosine to 10%
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, total_steps - warmup)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    print(f"LoRA r={args.rank} alpha={args.alpha}: {trainable:,} trainable parameters; {total_steps} steps", flush=True)
    log = {"losses": [], "holdout": []}
    step, epoch = 0, 0
    while step < total_steps:
        for group in batches(train_items, args.batch_tokens, rng):
            with _autocast(device):
                loss, _ = answer_loss(model, [train_items[i] for i in group], device, pad_id)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            log["losses"].append(round(loss.item(), 4))
            if step % 25 == 0 or step == total_steps:
                recent = log["losses"][-25:]
                print(
                    f"step {step}/{total_steps} loss {sum(recent) / len(recent):.4f} "
                    f"({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
            if step >= total_steps:
                break
        epoch += 1
        if holdout_items:
            value = evaluate(model, holdout_items, device, pad_id, args.batch_tokens)
            log["holdout"].append(round(value, 4))
            print(f"epoch {epoch}: hold-out answer loss {value:.4f}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    # The converter copies this name into the adapter GGUF's metadata: a name, not this host's path.
    model.peft_config["default"].base_model_name_or_path = BASE_MODEL_NAME
    model.save_pretrained(args.out)
    seconds = round(time.perf_counter() - started, 1)
    log.update(
        {
            "device": str(device) if device.type == "cpu" else torch.cuda.get_device_name(0),
            "examples_train": len(train_items),
            "examples_holdout": len(holdout_items),
            "steps": step,
            "trainable_parameters": trainable,
            "seconds": seconds,
            "args": {k: str(v) for k, v in vars(args).items()},
        }
    )
    (args.out / "train_log.json").write_text(json.dumps(log, indent=1))
    print(f"adapter written to {args.out} in {seconds} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
