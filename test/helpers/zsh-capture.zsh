# Drives zsh's real completion system: zsh -f zsh-capture.zsh COMPLETION_FILE "command line" OUT_FILE
# A zsh in a pseudo-terminal (zpty) sources the completion file, gets the line and a Tab; a compadd
# wrapper records every offer in OUT_FILE, which is printed sorted.
zmodload zsh/zpty
local file=$1 line=$2 out=$3
zpty z zsh -f -i
zpty -w z "PROMPT=''; RPROMPT=''"
zpty -w z "autoload -U compinit && compinit -u -D"
zpty -w z "source ${(q)file}"
zpty -w z "compadd() { local -a __m; builtin compadd -O __m \"\$@\"; print -rl -- \"\${__m[@]}\" >> ${(q)out}; builtin compadd \"\$@\"; }"
zpty -w z "print READY"
zpty -r -m z junk '*READY*'
zpty -w -n z "$line"$'\t'
# Wait for the first offer (the completion may run `paycli __complete`), then a moment for more.
for i in {1..100}; do [[ -s $out ]] && break; sleep 0.1; done
sleep 0.3
zpty -d z
[[ -f $out ]] && sort -u $out
exit 0
