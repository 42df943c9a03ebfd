#!/usr/bin/env python3
"""Writes a pa module (plan + decode + reduce) for one decode configuration.

Used by the pa-to-mfma code-object tests (test/Target/AMD/mfma-*.mlir) and
bench/amd_resources.sh. A configuration is a name like
  d256-fp8-p16-transposed-per_token-w257-q4g8
(head dim, KV type fp8|bf16, page size, V layout plain|transposed of the
packed cache, or nhd|hnd for K and V [N, P, Hkv, D] | [N, Hkv, P, D], scale
none|per_tensor|per_token, window (w0 = none), query length q and GQA group
g); optional suffixes: -bf16c (bf16 compute on an fp8 cache), -kv<N> (KV
heads, default 2), -n<N> (static page pool size instead of a dynamic one),
-cap<C> (logits soft-cap C), -sq (a strided query, strided<[?, D, 1]>: a
view of a fused qkv tensor), -cc (nhd / hnd: K and V as strided views of
one combined [N, 2, P, Hkv, D] / [N, 2, Hkv, P, D] cache, static strides),
-ps (nhd / hnd: K and V with a run-time page stride, strided<[?, ...]>: the
programs' signature), -alibi (ALiBi slopes [Hq]), -sm<S> (softmax scale S
instead of D^-1/2).
The fp8 flavour follows --chip (gfx942: f8E4M3FNUZ, gfx950: f8E4M3FN).
"""
import argparse
import re
import sys


def parse(name):
    m = re.fullmatch(
        r"d(?P<d>\d+)-(?P<kv>fp8|bf16)-p(?P<p>\d+)-(?P<v>plain|transposed|nhd|hnd)"
        r"-(?P<scale>none|per_tensor|per_token)-w(?P<w>-?\d+)"
        r"-q(?P<q>\d+)g(?P<g>\d+)(?P<rest>(-[a-z0-9.]+)*)", name)
    if not m:
        sys.exit(f"mfma_decode.py: bad configuration name '{name}'")
    config = {k: m.group(k) for k in ("kv", "v", "scale")}
    for k in ("d", "p", "w", "q", "g"):
        config[k] = int(m.group(k))
    config["compute"] = None
    config["kv_heads"] = 2
    config["pool"] = "?"
    config["cap"] = None
    config["strided_query"] = False
    config["combined"] = False
    config["page_stride"] = False
    config["alibi"] = False
    config["softmax_scale"] = None
    for part in filter(None, m.group("rest").split("-")):
        if part == "bf16c":
            config["compute"] = "bf16"
        elif part.startswith("kv"):
            config["kv_heads"] = int(part[2:])
        elif part == "sq":
            config["strided_query"] = True
        elif part == "cc" and config["v"] in ("nhd", "hnd"):
            config["combined"] = True
        elif part == "ps" and config["v"] in ("nhd", "hnd"):
            config["page_stride"] = True
        elif part == "alibi":
            config["alibi"] = True
        elif part.startswith("sm"):
            config["softmax_scale"] = float(part[2:])
        elif part.startswith("n"):
            config["pool"] = part[1:]
        elif part.startswith("cap"):
            config["cap"] = float(part[3:])
        else:
            sys.exit(f"mfma_decode.py: unknown suffix '{part}' in '{name}'")
    return config


def module(name, chip):
    c = parse(name)
    fp8 = "f8E4M3FNUZ" if chip == "gfx942" else "f8E4M3FN"
    kv = fp8 if c["kv"] == "fp8" else "bf16"
    x = 16 if c["kv"] == "fp8" else 8
    d, p, hkv, g, q = c["d"], c["p"], c["kv_heads"], c["g"], c["q"]
    hq, rows, n = hkv * g, q * g, c["pool"]
    key = f"memref<{n}x{hkv}x{d // x}x{p}x{x}x{kv}>"
    if c["v"] in ("nhd", "hnd"):
        dims = [p, hkv] if c["v"] == "nhd" else [hkv, p]
        strides = ""
        if c["combined"]:
            # [N, 2, ...]: K at offset 0, V one page half further.
            half = p * hkv * d
            strides = f", strided<[{2 * half}, {dims[1] * d}, {d}, 1]>"
        elif c["page_stride"]:
            strides = f", strided<[?, {dims[1] * d}, {d}, 1]>"
        key = f"memref<{n}x{dims[0]}x{dims[1]}x{d}x{kv}{strides}>"
        value = key
        if c["combined"]:
            value = key.replace("1]>", f"1], offset: {half}>")
    elif c["v"] == "plain":
        value = f"memref<{n}x{hkv}x{d}x{p}x{kv}>"
    else:
        value = f"memref<{n}x{hkv}x{p // x}x{d}x{x}x{kv}>"
    output = f"memref<?x{hq}x{d}xbf16>"
    query = (f"memref<?x{hq}x{d}xbf16, strided<[?, {d}, 1]>>"
             if c["strided_query"] else output)
    partial = f"memref<{hkv}x?x{rows}xf32>"
    tmp = f"memref<{hkv}x?x{rows}x{d}xf32>"
    scale_type = {"none": None, "per_tensor": "memref<1xf32>",
                  "per_token": f"memref<{n}x{hkv}x{p}xf32>"}[c["scale"]]
    args = [f"%query: {query}", f"%key_cache: {key}", f"%value_cache: {value}",
            "%block_tables: memref<?x?xi32>", "%context_lengths: memref<?xi32>"]
    scales = ""
    if scale_type:
        args += [f"%k_scale: {scale_type}", f"%v_scale: {scale_type}"]
        scales = (f"\n            k_scale(%k_scale : {scale_type})"
                  f" v_scale(%v_scale : {scale_type})")
    if c["alibi"]:
        args.append(f"%alibi_slopes: memref<{hq}xf32>")
        scales += f"\n            alibi_slopes(%alibi_slopes : memref<{hq}xf32>)"
    args += ["%work_info: memref<?x4xi32>", "%reduce_info: memref<?x2xi32>",
             f"%exp_sums: {partial}", f"%max_logits: {partial}",
             f"%tmp_out: {tmp}", f"%output: {output}"]
    layout = (f"layout = {c['v']}" if c["v"] in ("nhd", "hnd")
              else f"k_pack = {x}, v_layout = {c['v']}")
    attrs = [f"kv_layout = #pa.kv_layout<page_size = {p}, {layout}>",
             f"scale = #pa.scale<{c['scale']}>",
             f"sliding_window = {c['w']} : i64"]
    if c["compute"]:
        attrs.append(f"compute = #pa.compute<{c['compute']}>")
    if c["cap"]:
        attrs.append(f"logits_soft_cap = {c['cap']} : f64")
    if c["softmax_scale"] is not None:
        attrs.append(f"softmax_scale = {c['softmax_scale']} : f64")
    return f"""// {name} for {chip} (generated by mfma_decode.py)
func.func @decode({", ".join(args)}) {{
  pa.plan context_lengths(%context_lengths : memref<?xi32>)
          work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>)
          {{num_kv_heads = {hkv} : i64, query_length = {q} : i64,
           sliding_window = {c['w']} : i64}}
  pa.decode query(%query : {query}) key_cache(%key_cache : {key})
            value_cache(%value_cache : {value})
            block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>){scales}
            work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : {partial}) max_logits(%max_logits : {partial})
            tmp_out(%tmp_out : {tmp})
            {{{", ".join(attrs)}}}
  pa.reduce exp_sums(%exp_sums : {partial}) max_logits(%max_logits : {partial})
            tmp_out(%tmp_out : {tmp}) reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : {output})
  return
}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("config")
    parser.add_argument("--chip", default="gfx950", choices=["gfx942", "gfx950"])
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    text = module(args.config, args.chip)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
