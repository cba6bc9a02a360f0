"""The playground at run time: the page protocol (frames and answers), the service that replays a
log into a run and answers a press, the run cache, and the grading of quiz tasks by replay."""
