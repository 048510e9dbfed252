#!/bin/sh
# The device kernels of complex products (ol_reduce_prod_c32/c64 and their
# many-input forms, accel/kernels.cu) round each product and sum as the
# host does: nvcc must not contract a * b - c * d into fused multiply-adds,
# which round once and give other bits. Checked on the PTX that nvcc makes
# of kernels.cu (the input of every cubin of the fatbin): no fma, and every
# f32/f64 mul, add and sub with an explicit rounding (.rn), which the PTX
# ISA forbids ptxas to contract. Skipped (77) without nvcc.
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || { echo "no nvcc at $nvcc: skipped"; exit 77; }
work=$(mktemp -d) || exit 99
trap 'rm -rf "$work"' EXIT
"$nvcc" -ptx -arch=compute_75 -o "$work/kernels.ptx" "$top_srcdir/ompi-lite/accel/kernels.cu" ||
    { echo "FAIL: nvcc -ptx of kernels.cu"; exit 1; }
status=0
for kernel in ol_reduce_prod_c32 ol_reduce_prod_c64 ol_reduce_many_prod_c32 ol_reduce_many_prod_c64; do
    awk -v name="$kernel" '$0 ~ "^.visible .entry " name "[(]" { on = 1 } on { print } on && /^}/ { exit }' \
        "$work/kernels.ptx" >"$work/$kernel.ptx"
    [ -s "$work/$kernel.ptx" ] || { echo "FAIL: $kernel is not in the PTX"; status=1; continue; }
    contractible=$(grep -E '(fma|mad)\.|(mul|add|sub)\.f(32|64)' "$work/$kernel.ptx")
    if [ -n "$contractible" ]; then
        echo "FAIL: $kernel has fused or contractible floating-point instructions:"
        echo "$contractible" | head -n 5
        status=1
    else
        echo "$kernel: every product and sum rounded on its own ($(grep -cE '(mul|add|sub)\.rn\.f' "$work/$kernel.ptx") instructions)"
    fi
done
exit $status
