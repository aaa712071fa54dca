# Sourced by the bench scripts that time runs against each other; needs $work, a scratch folder.
# run NAME COMMAND…: its stdout in $work/NAME.out, "wall user rss_kb" of its fastest round so far (by
# wall time) in $work/NAME.time.
run() {
  local name=$1
  shift
  /usr/bin/time -f "%e %U %M" -o "$work/$name.try" "$@" > "$work/$name.out"
  if [ ! -f "$work/$name.time" ] || awk '{ w = $1 } END { exit !(w < best) }' best="$(cut -d' ' -f1 "$work/$name.time")" "$work/$name.try"; then
    mv "$work/$name.try" "$work/$name.time"
  fi
}
# step NAME: the simulated step of a run, pipegrid's "makespan X s," or the raw loop's "makespan X s;".
step() { sed -n 's/.*makespan \([0-9.e+-]*\) s.*/\1/p' "$work/$1.out" | head -1; }
