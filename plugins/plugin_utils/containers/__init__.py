# Copyright: (c) 2026, gpucluster.horovod contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Docker and the training containers: the daemon.json merge and the commands that run in the containers.

Pure Python. Layout: ``docker_daemon`` (the docker role's daemon.json settings) · ``training`` (docker exec argv,
known_hosts at the containers' port). Reached through the filters in plugins/filter/docker.py and container.py.
"""
