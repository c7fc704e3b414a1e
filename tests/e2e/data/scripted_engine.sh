# A scripted USI engine for the clock tests (match_clock.sh, book_grow.sh): plays 7g7f
# 3c3d 2g2f 8c8d by ply (whichever side it has), then resigns; sleeps SECONDS (the first
# argument) before each answer. Run as `bash scripted_engine.sh SECONDS`.
sleep_s=$1
moves=(7g7f 3c3d 2g2f 8c8d)
ply=0
while IFS= read -r line; do
    case "$line" in
    usi) echo "id name fake"; echo usiok ;;
    isready) echo readyok ;;
    "position startpos") ply=0 ;;
    "position startpos moves "*) set -- ${line#position startpos moves }; ply=$# ;;
    go*)
        sleep "$sleep_s"
        if [ "$ply" -lt 4 ]; then echo "bestmove ${moves[$ply]}"; else echo "bestmove resign"; fi ;;
    quit) exit 0 ;;
    esac
done
