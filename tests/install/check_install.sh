#!/usr/bin/env bash
# check_install.sh BUILD_DIR CONSUMER_SRC WORK_DIR CXX
# 1. cmake --install into WORK_DIR/prefix; 2. configure+build+run the consumer project with
# find_package(nabla CONFIG REQUIRED) (nabla::nabla, and nabla::models in gpt2.cpp); 3. build
# the same programs with pkg-config (nabla, nabla-models);
# 4. time a hello-world that includes <nabla/nabla.h> (the umbrella header must stay light).
set -euo pipefail
build=$1 consumer=$2 work=$3 cxx=$4
rm -rf "$work" && mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

cmake -S "$consumer" -B "$work/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/consumer-build" >/dev/null
out=$("$work/consumer-build/consumer")
echo "find_package consumer printed: $out"
[ "$out" = "nabla ok: sum=15 dtype=float32" ] || { echo "unexpected consumer output"; exit 1; }
out=$("$work/consumer-build/gpt2_consumer")
echo "find_package nabla::models consumer printed: $out"
[ "$out" = "gpt2 ok: logits [1, 3, 11] tokens 7" ] || { echo "unexpected gpt2 consumer output"; exit 1; }

pcdir=$(dirname "$(find "$prefix" -name nabla.pc | head -1)")
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs --static nabla)
"$cxx" -O1 "$consumer/main.cpp" $flags -o "$work/consumer-pc"
out=$("$work/consumer-pc")
[ "$out" = "nabla ok: sum=15 dtype=float32" ] || { echo "unexpected pkg-config consumer output"; exit 1; }
echo "pkg-config consumer printed: $out"
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs --static nabla-models)
"$cxx" -O1 "$consumer/gpt2.cpp" $flags -o "$work/gpt2-pc"
out=$("$work/gpt2-pc")
[ "$out" = "gpt2 ok: logits [1, 3, 11] tokens 7" ] || { echo "unexpected pkg-config gpt2 output"; exit 1; }
echo "pkg-config nabla-models consumer printed: $out"

printf '#include <nabla/nabla.h>\nint main() { return nabla::ones({2}).numel() == 2 ? 0 : 1; }\n' > "$work/hello.cpp"
start=$(date +%s.%N)
"$cxx" -std=c++20 -O0 -c "$work/hello.cpp" -I"$prefix/include" -o "$work/hello.o"
end=$(date +%s.%N)
secs=$(echo "$end - $start" | bc -l 2>/dev/null || awk "BEGIN{print $end - $start}")
echo "hello-world including <nabla/nabla.h> compiled in ${secs} s (LibTorch's header: ~17 s here)"
# A gross-regression guard on what the compiler must read (deterministic, unlike the
# time above, which doubles when ctest runs other tests beside this one): the header's
# preprocessed size was 3.7 MB in November 2026, LibTorch's torch/torch.h 12.7 MB.
bytes=$("$cxx" -std=c++20 -E "$work/hello.cpp" -I"$prefix/include" | wc -c)
echo "<nabla/nabla.h> preprocesses to $bytes bytes"
[ "$bytes" -lt 6000000 ] || { echo "umbrella header became heavy: $bytes bytes preprocessed (guard: 6 MB)"; exit 1; }
