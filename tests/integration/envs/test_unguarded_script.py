"""A user script without an ``if __name__ == "__main__":`` guard can use verifiers and workers."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_unguarded_script_runs_verifiers_and_worker_processes(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(textwrap.dedent("""
        import gymnasium as gym, awm_gym
        env = gym.make("AWM/spotify-v0")
        env.reset(seed=0)
        print("label", env.step("No idea.")[4]["verifier_label"])
        env.close()
        envs = gym.make_vec("AWM/spotify-v0", num_envs=2, num_workers=2)
        envs.reset(seed=[0, 1])
        print("labels", list(envs.step(["x", "y"])[4]["verifier_label"]))
        envs.close()
    """))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "label others" in proc.stdout
    assert "labels ['others', 'others']" in proc.stdout
