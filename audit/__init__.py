"""Audit recorded game footage: video frames → the photo pipeline → reveal events → report.

`tsumo audit` (tsumo/commands/audit.py) wires these modules together:

- `video`      decode with OpenCV, sample frames, name corrupt/truncated files
- `reader`     the `FrameReader` protocol and its adapter over `vision.pipeline.PhotoReader`
- `scan`       read one chunk of a video (cheap gating of static frames)
- `events`     readings → reveal events (a complete hand that stays readable for a moment)
- `declared`   the `--declared` CSV and the scoring context of each win
- `checkpoint` resumable progress (atomic JSON), so `kill -9` loses at most one chunk
- `runner`     plan chunks, run them in a process pool or as Ray tasks, merge in order
- `report`     report.json (CONTRACTS §5), report.csv, a self-contained report.html
- `synthvideo` generated test footage with known hands (uses tsumo_synth's scene renderer)
"""
