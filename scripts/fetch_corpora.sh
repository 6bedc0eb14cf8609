#!/usr/bin/env bash
# Fetch the real corpora (wheels of six RL frameworks, PyCG's micro-benchmark) into a cache
# outside the repository. Nothing fetched here is ever committed. Idempotent: what is already
# there is neither downloaded nor unpacked again.
# GYRELINT_FETCH_SCALE=1 also fetches transformers 4.57.1 (about 2,200 files), the scale corpus.
# GYRELINT_FETCH_GIT=1 also clones the labelled git checkouts at their pinned commits into
# $CACHE/git/heldout/<name> (tests/corpus_truth_heldout) and $CACHE/git/dev/<name>
# (tests/corpus_truth_dev): pass those folders to bench/*.py --corpora. Cloning runs no code of
# the cloned repository (no hooks, LFS smudging off).
set -euo pipefail
CACHE=${GYRELINT_CORPORA:-$HOME/.cache/gyrelint-corpora}
mkdir -p "$CACHE/wheels" "$CACHE/sdist" "$CACHE/src" "$CACHE/pycg"
cd "$CACHE"
[ -n "$(ls wheels/verl-*.whl 2>/dev/null)" ] || pip download -q --no-deps verl==0.9.1 openrlhf==0.11.2 trl==1.16.0 areal==1.0.4 -d wheels
# held-out frameworks (tests/corpus_truth_heldout); oat-llm requires Python < 3.11, so pip is told 3.10
[ -n "$(ls wheels/nemo_aligner-0.7.0-*.whl 2>/dev/null)" ] || pip download -q --no-deps nemo-aligner==0.7.0 -d wheels
[ -n "$(ls wheels/oat_llm-0.2.4-*.whl 2>/dev/null)" ] || pip download -q --no-deps oat-llm==0.2.4 --python-version 3.10 --only-binary=:all: -d wheels
if [ "${GYRELINT_FETCH_SCALE:-0}" = 1 ]; then
  [ -n "$(ls wheels/transformers-4.57.1-*.whl 2>/dev/null)" ] || pip download -q --no-deps transformers==4.57.1 -d wheels
fi
[ -n "$(ls sdist/pycg-*.tar.gz 2>/dev/null)" ] || pip download -q --no-deps --no-binary :all: pycg==0.0.8 -d sdist
for w in wheels/*.whl; do
  n=$(basename "$w" | cut -d- -f1)
  [ -d "src/$n" ] || (mkdir -p "src/$n" && cd "src/$n" && unzip -qo "../../$w")
done
[ -d pycg/pycg-0.0.8 ] || tar xzf sdist/pycg-0.0.8.tar.gz -C pycg
if [ "${GYRELINT_FETCH_GIT:-0}" = 1 ]; then
  # folder name url commit
  while read -r set name url commit; do
    dest="git/$set/$name"
    [ -d "$dest" ] && continue
    mkdir -p "git/$set"
    GIT_LFS_SKIP_SMUDGE=1 git -c core.hooksPath=/dev/null clone -q --no-checkout "$url" "$dest.part"
    GIT_LFS_SKIP_SMUDGE=1 git -c core.hooksPath=/dev/null -C "$dest.part" checkout -q "$commit"
    mv "$dest.part" "$dest"
  done <<'TREES'
heldout slime https://github.com/THUDM/slime 624b824a898ab0ec1fcb4d373004c7f3852bf515
heldout roll https://github.com/alibaba/ROLL 8eb27cc2dc34c4d1310b169d9b86d339004d811a
heldout skyrl https://github.com/NovaSky-AI/SkyRL a9564572eb8e91076be43c1bd5e4615e3de17265
heldout open_instruct https://github.com/allenai/open-instruct e6c3044aa6201c8bfa4573c1b03142af599e730d
heldout prime_rl https://github.com/PrimeIntellect-ai/prime-rl 559b44772e471d1538537b8805cc77f3824a5e64
heldout pipelinerl https://github.com/ServiceNow/PipelineRL 58d393458625ad63ed539f2dcd072c85700c557f
heldout nemo_rl https://github.com/NVIDIA-NeMo/RL 7ea279abfbeb698b092856d0dab61e7cf39bc909
heldout rlinf https://github.com/RLinf/RLinf a3816b596478dcd8a5c69a6ec1468c9519f77b5b
heldout orz https://github.com/Open-Reasoner-Zero/Open-Reasoner-Zero 3fdd9a07b4fb01e06005e6e74fc56690cde8a341
heldout trlx https://github.com/CarperAI/trlx 3340c2f3a56d1d14fdd5f13ad575121fa26b6d92
heldout verifiers https://github.com/willccbb/verifiers 39f0675a858fb803f4d910466580cb87f60892fb
heldout colossalchat https://github.com/hpcaitech/ColossalAI 4f9953be335ef371b3848719ddafe596c01ecd37
heldout ms_swift https://github.com/modelscope/ms-swift 3602360a562313afbf2ef6065fdf61f271a2c5b9
heldout chatlearn https://github.com/alibaba/ChatLearn b7af31a972eb6c420ef0b5c04ea920820d68f784
heldout rl2 https://github.com/ChenmienTan/RL2 9161ede5dcd2700bc166a17b1041bd206a75b5d4
heldout tunix https://github.com/google/tunix c7d8950f12a9c55a976bf2e1a0d8b447d71c20b3
dev forge https://github.com/meta-pytorch/forge 8cb21bef356349ae72a2e56afde14845c9937bbe
dev art https://github.com/OpenPipe/ART 779559fd0c68ce073cbd041447f88aacf1d9f585
dev rllm https://github.com/rllm-org/rllm 9beb6e0f676a46d38858991fd79ac5f8e0b16d4c
dev ragen https://github.com/RAGEN-AI/RAGEN 5eb79b82cecc31db5662ba3c96b752405692410b
dev agent_lightning https://github.com/microsoft/agent-lightning c632d8dd804103bd421c65208bc501952689039f
dev atropos https://github.com/NousResearch/atropos 296a0bc55760e43b9c0743c052f8d6c2732606d1
dev deepspeed_chat https://github.com/microsoft/DeepSpeedExamples 83757d9c937daabd1089a08051061706cb73900d
dev rl4lms https://github.com/allenai/RL4LMs 97df0bd2f7406a906206c9610aea795fbf52884c
dev compose_rl https://github.com/databricks/compose-rl ae569916398b12c5f349e3abd9a3c9c984d8e292
dev easyr1 https://github.com/hiyouga/EasyR1 b44b311b669bf1fd1aa2fc36f2251482ba33cb16
dev torchtune https://github.com/pytorch/torchtune bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1
dev easydel https://github.com/erfanzar/EasyDeL 090a03b2e0b3606bd38e0e3fcfdc640cd7e6e246
dev marti https://github.com/TsinghuaC3I/MARTI a2fe2c7b9ec46cf24769c90575c51d847f41d04e
dev llamafactory https://github.com/hiyouga/LLaMA-Factory ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30
dev tinker_cookbook https://github.com/thinking-machines-lab/tinker-cookbook 9dfcc3a2cf44432d621a01005073dc6d76a1e87a
dev realhf https://github.com/openpsi-project/ReaLHF be75fce9931acb9298270fdda08fdca46b6ee8ba
dev xtuner https://github.com/InternLM/xtuner b934f462095c1e750229de35367c50ae36caa786
dev mindspeed_rl https://github.com/Ascend/MindSpeed-RL 05a90d77cb6cfad8999e2aee21068284db959579
TREES
fi
echo "$CACHE"
